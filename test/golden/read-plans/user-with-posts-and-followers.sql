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
  ],
  "deprecations": []
}
-- sqlite
SELECT (rtrim(json_object('name', t0."name"), '}') || ',"posts":' || (SELECT ('[' || coalesce(group_concat(t2.j, ','), '') || ']') FROM (SELECT json_object('title', t1."title") AS j FROM "posts" t1 WHERE t1."author_id" = t0."id" AND ((t1._rowid_ & 255) <> 0 OR diglot_deadline()) ORDER BY t1."created_at" DESC, (char(length(t1."id")) || t1."id") DESC LIMIT +?) t2) || ',"followers":' || (SELECT ('[' || coalesce(group_concat(t5.j, ','), '') || ']') FROM (SELECT json_object('name', t3."name") AS j FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY (char(length(t4."target_id")) || t4."target_id") ASC LIMIT +?) t5) || '}') AS j FROM "users" t0 WHERE t0."id" = +?
-- postgres
SELECT ('{"name":' || coalesce(to_json(t0."name"), 'null') || ',"posts":' || coalesce('[{"title":' || nullif(array_to_string(ARRAY(SELECT coalesce(to_json(t1."title"), 'null') AS j FROM "posts" t1 WHERE t1."author_id" = t0."id" ORDER BY t1."created_at" DESC, length(t1."id") DESC, t1."id" DESC LIMIT $1), '},{"title":'), '') || '}]', '[]') || ',"followers":' || coalesce('[{"name":' || nullif(array_to_string(ARRAY(SELECT coalesce(to_json(t3."name"), 'null') AS j FROM "users" t3 JOIN "users_followers" t4 ON t4."target_id" = t3."id" WHERE t4."source_id" = t0."id" ORDER BY length(t4."target_id") ASC, t4."target_id" ASC LIMIT $2), '},{"name":'), '') || '}]', '[]') || '}') AS j FROM "users" t0 WHERE t0."id" = $3
