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
  ],
  "deprecations": []
}
-- sqlite
SELECT (rtrim(json_object('name', t0."name", 'isVerified', CASE t0."is_verified" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END), '}') || ',"posts":' || (SELECT ('[' || coalesce(group_concat(t2.j, ','), '') || ']') FROM (SELECT json_object('title', t1."title") AS j FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY (char(length(t1."id")) || t1."id") ASC LIMIT +?) t2) || ',"followers":' || (SELECT ('[' || coalesce(group_concat(t5.j, ','), '') || ']') FROM (SELECT (rtrim(json_object('name', t3."name"), '}') || ',"posts":' || (SELECT ('[' || coalesce(group_concat(t7.j, ','), '') || ']') FROM (SELECT json_object('title', t6."title") AS j FROM "posts" t6 WHERE t6."author_id" = t3."id" ORDER BY (char(length(t6."id")) || t6."id") ASC LIMIT +?) t7) || '}') AS j FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY (char(length(t4."target_id")) || t4."target_id") ASC LIMIT +?) t5) || ',' || substr(json_object('postsCount', (SELECT count(*) FROM "posts" t8 WHERE t8."author_id" = t0."id")), 2)) AS j, t0."name" AS o0, t0."id" AS o1 FROM "users" t0 WHERE ((t0._rowid_ & 255) <> 0 OR diglot_deadline()) AND (t0."role" IN (+?, +?) AND instr(t0."name", +?) = 1) ORDER BY t0."name" ASC, (char(length(t0."id")) || t0."id") ASC LIMIT +? + 1
-- postgres
SELECT format('{"name":%s,"isVerified":%s,"posts":%s,"followers":%s,"postsCount":%s}', coalesce(to_json(t0."name"), 'null'), coalesce(to_json((t0."is_verified")), 'null'), coalesce('[{"title":' || nullif(array_to_string(ARRAY(SELECT coalesce(to_json(t1."title"), 'null') AS j FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY length(t1."id") ASC, t1."id" ASC LIMIT $1), '},{"title":'), '') || '}]', '[]'), coalesce('[{"name":' || nullif(array_to_string(ARRAY(SELECT (coalesce(to_json(t3."name"), 'null') || ',"posts":' || coalesce('[{"title":' || nullif(array_to_string(ARRAY(SELECT coalesce(to_json(t6."title"), 'null') AS j FROM "posts" t6 WHERE t6."author_id" = t3."id" ORDER BY length(t6."id") ASC, t6."id" ASC LIMIT $2), '},{"title":'), '') || '}]', '[]')) AS j FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY length(t4."target_id") ASC, t4."target_id" ASC LIMIT $3), '},{"name":'), '') || '}]', '[]'), coalesce(to_json((SELECT count(*) FROM "posts" t8 WHERE t8."author_id" = t0."id")), 'null')) AS j, t0."name" AS o0, t0."id" AS o1 FROM "users" t0 WHERE (t0."role" IN ($4, $5) AND starts_with(t0."name", $6::text)) ORDER BY t0."name" ASC, length(t0."id") ASC, t0."id" ASC LIMIT $7 + 1
