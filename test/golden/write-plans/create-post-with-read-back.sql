-- plan
{
  "kind": "create",
  "type": "Post",
  "values": {},
  "actor": {
    "id": "7",
    "role": "MEMBER",
    "via": "jwt"
  }
}
-- sqlite: one transaction; clocks of ["posts"]
-- apply
INSERT INTO "posts" ("id", "title", "body", "author_id", "created_at", "updated_at") VALUES (+?, +?, +?, +?, +?, +?)
-- params ["new-1","Hello","First post","7","2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES (+?, +?, +?) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = +? RETURNING "table_name", "version", "changed_at"
-- params ["posts",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- event previousParam=5
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = +?) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES (+?, +?, +?, +?, (SELECT json_object('id', t0."id", 'title', t0."title", 'body', t0."body", 'author', t0."author_id", 'status', t0."status", 'publishedAt', t0."published_at", 'tags', json(t0."tags"), 'cover', ('/files/' || t0."cover"), 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j FROM "_event_row" t0), +?, +?, +?)
-- params ["new-1","evt_1","post.created","new-1","{\"id\":\"7\",\"role\":\"MEMBER\",\"via\":\"jwt\"}",null,null,"2026-01-02T03:04:05.678Z"]
-- postgres: one statement, no transaction; clocks of ["posts"]
-- create
WITH "_new_row" AS (INSERT INTO "posts" ("id", "title", "body", "author_id", "created_at", "updated_at") VALUES ($1, $2, $3, $4, $5, $6) RETURNING *), "_clock" AS (INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES ($7, $8, $9) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = $10 RETURNING "table_name", "version", "changed_at"), "_event" AS (INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES ($11, $12, $13, $14, (SELECT format('{"id":%s,"title":%s,"body":%s,"author":%s,"status":%s,"publishedAt":%s,"tags":%s,"cover":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."title"), 'null'), coalesce(to_json(t0."body"), 'null'), coalesce(to_json(t0."author_id"), 'null'), coalesce(to_json(t0."status"), 'null'), coalesce(to_char((t0."published_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce((t0."tags")::json, 'null'), coalesce(to_json((('/files/')::text || (t0."cover")::text)), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j FROM "_new_row" t0), $15, $16, $17)) SELECT "_clock"."table_name", "_clock"."version", "_clock"."changed_at", (SELECT ('{"id":' || coalesce(to_json(t0."id"), 'null') || ',"title":' || coalesce(to_json(t0."title"), 'null') || ',"createdAt":' || coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null') || '}') AS j FROM "_new_row" t0) AS "j" FROM "_clock"
-- params ["new-1","Hello","First post","7","2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z","posts#3",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z","evt_1","post.created","new-1","{\"id\":\"7\",\"role\":\"MEMBER\",\"via\":\"jwt\"}",null,null,"2026-01-02T03:04:05.678Z"]
