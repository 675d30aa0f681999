-- plan
{
  "kind": "create",
  "type": "Post",
  "values": {},
  "rules": {
    "params": [
      "7"
    ],
    "check": {
      "op": "eq",
      "field": "author",
      "value": {
        "param": 0
      }
    }
  }
}
-- sqlite: one transaction; clocks of ["posts"]
-- apply
INSERT INTO "posts" ("id", "title", "body", "author_id", "created_at", "updated_at") VALUES (+?, +?, +?, +?, +?, +?)
-- params ["new-1","Hello","First post","7","2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- check
SELECT 1 AS ok FROM "posts" t0 WHERE t0."id" = +? AND t0."author_id" = +?
-- params ["new-1","7"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES (+?, +?, +?) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = +? RETURNING "table_name", "version", "changed_at"
-- params ["posts",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- event previousParam=5
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = +?) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES (+?, +?, +?, +?, (SELECT json_object('id', t0."id", 'title', t0."title", 'body', t0."body", 'author', t0."author_id", 'status', t0."status", 'publishedAt', t0."published_at", 'tags', json(t0."tags"), 'cover', ('/files/' || t0."cover"), 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j FROM "_event_row" t0), +?, +?, +?)
-- params ["new-1","evt_1","post.created","new-1","{\"id\":null,\"role\":null,\"via\":\"system\"}",null,null,"2026-01-02T03:04:05.678Z"]
-- postgres: one transaction; clocks of ["posts"]
-- apply
INSERT INTO "posts" ("id", "title", "body", "author_id", "created_at", "updated_at") VALUES ($1, $2, $3, $4, $5, $6)
-- params ["new-1","Hello","First post","7","2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- check
SELECT 1 AS ok FROM "posts" t0 WHERE t0."id" = $1 AND t0."author_id" = $2
-- params ["new-1","7"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES ($1, $2, $3) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = $4 RETURNING "table_name", "version", "changed_at"
-- params ["posts#3",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- event previousParam=5
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = $1 FOR UPDATE) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES ($2, $3, $4, $5, (SELECT format('{"id":%s,"title":%s,"body":%s,"author":%s,"status":%s,"publishedAt":%s,"tags":%s,"cover":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."title"), 'null'), coalesce(to_json(t0."body"), 'null'), coalesce(to_json(t0."author_id"), 'null'), coalesce(to_json(t0."status"), 'null'), coalesce(to_char((t0."published_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce((t0."tags")::json, 'null'), coalesce(to_json((('/files/')::text || (t0."cover")::text)), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j FROM "_event_row" t0), $6, $7, $8)
-- params ["new-1","evt_1","post.created","new-1","{\"id\":null,\"role\":null,\"via\":\"system\"}",null,null,"2026-01-02T03:04:05.678Z"]
