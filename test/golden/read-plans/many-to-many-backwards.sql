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
          "key": "id",
          "field": "id"
        },
        {
          "kind": "cursor",
          "key": "cursor"
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
        "fromEnd": true
      }
    },
    "parent": {
      "type": "User",
      "field": "following",
      "id": {
        "param": 0
      }
    },
    "totalCount": false
  },
  "params": [
    "1",
    3
  ],
  "deprecations": []
}
-- sqlite
SELECT * FROM (SELECT json_object('id', t0."id", 'cursor', hex(json_array('-createdAt,-id', t0."created_at", t0."id"))) AS j, t0."created_at" AS o0, t1."source_id" AS o1 FROM "users" t0 JOIN "users_followers" t1 ON t1."source_id" = t0."id" WHERE t1."target_id" = +? AND ((t0._rowid_ & 255) <> 0 OR diglot_deadline()) ORDER BY t0."created_at" ASC, (char(length(t1."source_id")) || t1."source_id") ASC LIMIT +? + 1) p UNION ALL SELECT NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM "users" t2 WHERE t2."id" = +?)
-- postgres
SELECT * FROM (SELECT ('{"id":' || coalesce(to_json(t0."id"), 'null') || ',"cursor":' || coalesce(to_json(upper(encode(convert_to(array_to_json(ARRAY[to_json('-createdAt,-id'::text), to_json(to_char((t0."created_at") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), to_json(t0."id")])::text, 'UTF8'), 'hex'))), 'null') || '}') AS j, t0."created_at" AS o0, t1."source_id" AS o1 FROM "users" t0 JOIN "users_followers" t1 ON t1."source_id" = t0."id" WHERE t1."target_id" = $1 ORDER BY t0."created_at" ASC, length(t1."source_id") ASC, t1."source_id" ASC LIMIT $2 + 1) p UNION ALL SELECT NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM "users" t2 WHERE t2."id" = $3)
