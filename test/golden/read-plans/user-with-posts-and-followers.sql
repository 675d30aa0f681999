-- plan
{
  "kind": "read",
  "root": {
    "kind": "one",
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
                "field": "createdAt",
                "direction": "desc"
              },
              {
                "field": "id",
                "direction": "desc"
              }
            ],
            "page": {
              "limit": {
                "param": 0
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
                "param": 1
              },
              "fromEnd": false
            }
          }
        }
      ]
    },
    "id": {
      "param": 2
    }
  },
  "params": [
    10,
    10,
    "1"
  ]
}
-- sqlite
SELECT (rtrim(json_object('name', t0."name"), '}') || ',"posts":' || (SELECT ('[' || coalesce(group_concat(json_object('title', t2."title"), ','), '') || ']') FROM (SELECT t1."title" AS "title" FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY t1."created_at" DESC, t1."id" DESC LIMIT ?) t2) || ',"followers":' || (SELECT ('[' || coalesce(group_concat(json_object('name', t5."name"), ','), '') || ']') FROM (SELECT t3."name" AS "name" FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY t4."target_id" ASC LIMIT ?) t5) || '}') AS j FROM "users" t0 WHERE t0."id" = ?
-- postgres
SELECT ('{"name":' || coalesce(to_json(t0."name"), 'null') || ',"posts":' || (SELECT ('[' || coalesce(string_agg(('{"title":' || coalesce(to_json(t2."title"), 'null') || '}'), ','), '') || ']') FROM (SELECT t1."title" AS "title" FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY t1."created_at" DESC, t1."id" DESC LIMIT $1) t2) || ',"followers":' || (SELECT ('[' || coalesce(string_agg(('{"name":' || coalesce(to_json(t5."name"), 'null') || '}'), ','), '') || ']') FROM (SELECT t3."name" AS "name" FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY t4."target_id" ASC LIMIT $2) t5) || '}') AS j FROM "users" t0 WHERE t0."id" = $3
