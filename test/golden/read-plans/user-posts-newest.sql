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
  ]
}
-- sqlite
SELECT CASE WHEN t1."id" IS NULL THEN NULL ELSE json_object('id', t1."id", 'title', t1."title", 'createdAt', t1."created_at") END AS j, t1."created_at" AS o0, t1."id" AS o1, 1 AS parent_found FROM "users" t0 LEFT JOIN "posts" t1 ON t1."author_id" = t0."id" WHERE t0."id" = ? ORDER BY t1."created_at" DESC, t1."id" DESC LIMIT ? + 1
-- postgres
SELECT ('{"id":' || coalesce(to_json(t0."id"), 'null') || ',"title":' || coalesce(to_json(t0."title"), 'null') || ',"createdAt":' || coalesce(to_json(to_char((t0."created_at") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), 'null') || '}') AS j, t0."created_at" AS o0, t0."id" AS o1 FROM "posts" t0 WHERE t0."author_id" = $1 ORDER BY t0."created_at" DESC, t0."id" DESC LIMIT $2 + 1
-- (an empty page only: does the parent exist?)
SELECT 1 AS found FROM "users" WHERE "id" = $1
