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
          "direction": "asc"
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
  ]
}
-- sqlite
SELECT (SELECT group_concat(("table_name" || ':' || CAST("version" AS TEXT)), ',' ORDER BY "table_name") FROM "_diglot_clock" WHERE "table_name" IN ('users', 'users_followers')) AS clock, (SELECT max("changed_at") FROM "_diglot_clock" WHERE "table_name" IN ('users', 'users_followers')) AS clock_time, t2.j AS j, t2.o0, t2.o1, m.* FROM (SELECT (SELECT count(*) FROM "users" WHERE "id" = ?) AS parent_found) m LEFT JOIN (SELECT json_object('id', t0."id", 'cursor', hex(json_array('-createdAt,id', t0."created_at", t0."id"))) AS j, t0."created_at" AS o0, t0."id" AS o1 FROM "users" t0 JOIN "users_followers" t1 ON t1."source_id" = t0."id" WHERE t1."target_id" = ? ORDER BY t0."created_at" ASC, t0."id" DESC LIMIT ? + 1) t2 ON 1=1 ORDER BY t2.o0 ASC NULLS LAST, t2.o1 DESC NULLS FIRST
-- postgres
SELECT (SELECT string_agg(((("table_name")::text || (':')::text || (CAST("version" AS TEXT))::text))::text, ',' ORDER BY "table_name") FROM "_diglot_clock" WHERE "table_name" IN ('users', 'users_followers')) AS clock, (SELECT max(to_char(("changed_at") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) FROM "_diglot_clock" WHERE "table_name" IN ('users', 'users_followers')) AS clock_time, (t2.j)::text AS j, t2.o0, t2.o1, m.* FROM (SELECT (SELECT count(*) FROM "users" WHERE "id" = $1) AS parent_found) m LEFT JOIN (SELECT (SELECT row_to_json(_dj) FROM (SELECT t0."id" AS "id", upper(encode(convert_to(array_to_json(ARRAY[to_json('-createdAt,id'::text), to_json(to_char((t0."created_at") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), to_json(t0."id")])::text, 'UTF8'), 'hex')) AS "cursor") _dj) AS j, t0."created_at" AS o0, t0."id" AS o1 FROM "users" t0 JOIN "users_followers" t1 ON t1."source_id" = t0."id" WHERE t1."target_id" = $2 ORDER BY t0."created_at" ASC, t0."id" DESC LIMIT $3 + 1) t2 ON 1=1 ORDER BY t2.o0 ASC NULLS LAST, t2.o1 DESC NULLS FIRST
