-- plan
{
  "kind": "read",
  "root": {
    "kind": "list",
    "node": {
      "type": "Post",
      "select": [
        {
          "kind": "column",
          "key": "id",
          "field": "id"
        },
        {
          "kind": "column",
          "key": "title",
          "field": "title"
        },
        {
          "kind": "column",
          "key": "createdAt",
          "field": "createdAt"
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
          "param": 1
        },
        "fromEnd": false
      }
    },
    "parent": {
      "type": "User",
      "field": "posts",
      "id": {
        "param": 0
      }
    },
    "totalCount": false
  },
  "params": [
    "1",
    10
  ],
  "deprecations": []
}
-- sqlite
SELECT * FROM (SELECT json_object('id', t0."id", 'title', t0."title", 'createdAt', t0."created_at") AS j, t0."created_at" AS o0, t0."id" AS o1 FROM "posts" t0 WHERE t0."author_id" = +? AND ((t0._rowid_ & 255) <> 0 OR diglot_deadline()) ORDER BY t0."created_at" DESC, (char(length(t0."id")) || t0."id") DESC LIMIT +? + 1) p UNION ALL SELECT NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM "users" t1 WHERE t1."id" = +?)
-- postgres
SELECT * FROM (SELECT ('{"id":' || coalesce(to_json(t0."id"), 'null') || ',"title":' || coalesce(to_json(t0."title"), 'null') || ',"createdAt":' || coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null') || '}') AS j, t0."created_at" AS o0, t0."id" AS o1 FROM "posts" t0 WHERE t0."author_id" = $1 ORDER BY t0."created_at" DESC, length(t0."id") DESC, t0."id" DESC LIMIT $2 + 1) p UNION ALL SELECT NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM "users" t1 WHERE t1."id" = $3)
