-- plan
{
  "kind": "read",
  "root": {
    "kind": "list",
    "node": {
      "type": "User",
      "select": [
        {
          "kind": "column",
          "key": "name",
          "field": "name"
        },
        {
          "kind": "column",
          "key": "isVerified",
          "field": "isVerified"
        },
        {
          "kind": "toMany",
          "key": "posts",
          "field": "posts",
          "node": {
            "type": "Post",
            "select": [
              {
                "kind": "column",
                "key": "title",
                "field": "title"
              }
            ],
            "order": [
              {
                "field": "id",
                "direction": "asc"
              }
            ],
            "page": {
              "limit": {
                "param": 3
              },
              "fromEnd": false
            }
          }
        },
        {
          "kind": "toMany",
          "key": "followers",
          "field": "followers",
          "node": {
            "type": "User",
            "select": [
              {
                "kind": "column",
                "key": "name",
                "field": "name"
              },
              {
                "kind": "toMany",
                "key": "posts",
                "field": "posts",
                "node": {
                  "type": "Post",
                  "select": [
                    {
                      "kind": "column",
                      "key": "title",
                      "field": "title"
                    }
                  ],
                  "order": [
                    {
                      "field": "id",
                      "direction": "asc"
                    }
                  ],
                  "page": {
                    "limit": {
                      "param": 4
                    },
                    "fromEnd": false
                  }
                }
              }
            ],
            "order": [
              {
                "field": "id",
                "direction": "asc"
              }
            ],
            "page": {
              "limit": {
                "param": 5
              },
              "fromEnd": false
            }
          }
        },
        {
          "kind": "count",
          "key": "postsCount",
          "field": "posts"
        }
      ],
      "filter": {
        "op": "and",
        "items": [
          {
            "op": "in",
            "field": "role",
            "values": [
              {
                "param": 0
              },
              {
                "param": 1
              }
            ]
          },
          {
            "op": "startsWith",
            "field": "name",
            "value": {
              "param": 2
            }
          }
        ]
      },
      "order": [
        {
          "field": "name",
          "direction": "asc"
        },
        {
          "field": "id",
          "direction": "asc"
        }
      ],
      "page": {
        "limit": {
          "param": 6
        },
        "fromEnd": false
      }
    },
    "totalCount": false
  },
  "params": [
    "MEMBER",
    "ADMIN",
    "A",
    5,
    2,
    5,
    12
  ]
}
-- sqlite
SELECT (rtrim(json_object('name', t0."name", 'isVerified', CASE t0."is_verified" WHEN 1 THEN json('true') WHEN 0 THEN json('false') END), '}') || ',"posts":' || (SELECT ('[' || coalesce(group_concat(json_object('title', t2."title"), ','), '') || ']') FROM (SELECT t1."title" AS "title" FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY t1."id" ASC LIMIT ?) t2) || ',"followers":' || (SELECT ('[' || coalesce(group_concat((rtrim(json_object('name', t5."name"), '}') || ',"posts":' || (SELECT ('[' || coalesce(group_concat(json_object('title', t7."title"), ','), '') || ']') FROM (SELECT t6."title" AS "title" FROM "posts" t6 WHERE t6."author_id" = t5."id" ORDER BY t6."id" ASC LIMIT ?) t7) || '}'), ','), '') || ']') FROM (SELECT t3."name" AS "name", t3."id" AS "id" FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY t4."target_id" ASC LIMIT ?) t5) || ',' || substr(json_object('postsCount', (SELECT count(*) FROM "posts" t8 WHERE t8."author_id" = t0."id")), 2)) AS j, t0."name" AS o0, t0."id" AS o1 FROM "users" t0 WHERE (t0."role" IN (?, ?) AND instr(t0."name", ?) = 1) ORDER BY t0."name" ASC, t0."id" ASC LIMIT ? + 1
-- postgres
SELECT concat('{"name":', coalesce(to_json(t0."name"), 'null'), ',"isVerified":', coalesce(to_json((t0."is_verified")), 'null'), ',"posts":', (SELECT ('[' || coalesce(string_agg(('{"title":' || coalesce(to_json(t2."title"), 'null') || '}'), ','), '') || ']') FROM (SELECT t1."title" AS "title" FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY t1."id" ASC LIMIT $1) t2), ',"followers":', (SELECT ('[' || coalesce(string_agg(('{"name":' || coalesce(to_json(t5."name"), 'null') || ',"posts":' || (SELECT ('[' || coalesce(string_agg(('{"title":' || coalesce(to_json(t7."title"), 'null') || '}'), ','), '') || ']') FROM (SELECT t6."title" AS "title" FROM "posts" t6 WHERE t6."author_id" = t5."id" ORDER BY t6."id" ASC LIMIT $2) t7) || '}'), ','), '') || ']') FROM (SELECT t3."name" AS "name", t3."id" AS "id" FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY t4."target_id" ASC LIMIT $3) t5), ',"postsCount":', coalesce(to_json((SELECT count(*) FROM "posts" t8 WHERE t8."author_id" = t0."id")), 'null'), '}') AS j, t0."name" AS o0, t0."id" AS o1 FROM "users" t0 WHERE (t0."role" IN ($4, $5) AND starts_with(t0."name", $6::text)) ORDER BY t0."name" ASC, t0."id" ASC LIMIT $7 + 1
