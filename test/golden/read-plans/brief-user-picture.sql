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
          "kind": "file",
          "key": "profilePicture",
          "field": "profilePicture",
          "size": {
            "param": 0
          }
        }
      ]
    },
    "id": {
      "param": 1
    }
  },
  "params": [
    64,
    "42"
  ]
}
-- sqlite
SELECT (SELECT group_concat(("table_name" || ':' || CAST("version" AS TEXT)), ',' ORDER BY "table_name") FROM "_diglot_clock" WHERE "table_name" IN ('users')) AS clock, (SELECT max("changed_at") FROM "_diglot_clock" WHERE "table_name" IN ('users')) AS clock_time, json_object('name', t0."name", 'profilePicture', ('/files/' || t0."profile_picture" || '/' || ?)) AS j FROM "users" t0 WHERE t0."id" = ?
-- postgres
SELECT (SELECT string_agg(((("table_name")::text || (':')::text || (CAST("version" AS TEXT))::text))::text, ',' ORDER BY "table_name") FROM "_diglot_clock" WHERE "table_name" IN ('users')) AS clock, (SELECT max(to_char(("changed_at") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) FROM "_diglot_clock" WHERE "table_name" IN ('users')) AS clock_time, ((SELECT row_to_json(_dj) FROM (SELECT t0."name" AS "name", (('/files/')::text || (t0."profile_picture")::text || ('/')::text || ($1)::text) AS "profilePicture") _dj))::text AS j FROM "users" t0 WHERE t0."id" = $2
