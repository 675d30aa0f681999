-- plan
{
  "kind": "update",
  "type": "Post",
  "id": "1",
  "values": {},
  "replace": false,
  "rules": {
    "params": [
      "7",
      "PUBLISHED"
    ],
    "visible": {
      "op": "eq",
      "field": "status",
      "value": {
        "param": 1
      }
    },
    "allowed": {
      "op": "eq",
      "field": "author",
      "value": {
        "param": 0
      }
    }
  }
}
-- sqlite: one transaction; clocks of ["posts"]
-- lock
UPDATE "posts" SET "id" = "id" WHERE "id" = +?
-- params ["1"]
-- rules type=Post id=1
SELECT CASE WHEN t0."status" = +? THEN 1 ELSE 0 END AS visible, CASE WHEN t0."author_id" = +? THEN 1 ELSE 0 END AS allowed FROM "posts" t0 WHERE t0."id" = +?
-- params ["PUBLISHED","7","1"]
-- precondition (the caller reads the record under the lock)
-- previous
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = +?) SELECT json_object('id', t0."id", 'title', t0."title", 'body', t0."body", 'author', t0."author_id", 'status', t0."status", 'publishedAt', t0."published_at", 'tags', json(t0."tags"), 'cover', ('/files/' || t0."cover"), 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j FROM "_event_row" t0
-- params ["1"]
-- apply none=notFound
UPDATE "posts" SET "title" = +?, "updated_at" = +? WHERE "id" = +?
-- params ["Hello again","2026-01-02T03:04:05.678Z","1"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES (+?, +?, +?) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = +? RETURNING "table_name", "version", "changed_at"
-- params ["posts",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- event previousParam=5
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = +?) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES (+?, +?, +?, +?, (SELECT json_object('id', t0."id", 'title', t0."title", 'body', t0."body", 'author', t0."author_id", 'status', t0."status", 'publishedAt', t0."published_at", 'tags', json(t0."tags"), 'cover', ('/files/' || t0."cover"), 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j FROM "_event_row" t0), +?, +?, +?)
-- params ["1","evt_1","post.updated","1","{\"id\":null,\"role\":null,\"via\":\"system\"}",null,null,"2026-01-02T03:04:05.678Z"]
-- postgres: one transaction; clocks of ["posts"]
-- lock
UPDATE "posts" SET "id" = "id" WHERE "id" = $1
-- params ["1"]
-- rules type=Post id=1
SELECT CASE WHEN t0."status" = $1 THEN 1 ELSE 0 END AS visible, CASE WHEN t0."author_id" = $2 THEN 1 ELSE 0 END AS allowed FROM "posts" t0 WHERE t0."id" = $3
-- params ["PUBLISHED","7","1"]
-- precondition (the caller reads the record under the lock)
-- previous
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = $1 FOR UPDATE) SELECT format('{"id":%s,"title":%s,"body":%s,"author":%s,"status":%s,"publishedAt":%s,"tags":%s,"cover":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."title"), 'null'), coalesce(to_json(t0."body"), 'null'), coalesce(to_json(t0."author_id"), 'null'), coalesce(to_json(t0."status"), 'null'), coalesce(to_char((t0."published_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce((t0."tags")::json, 'null'), coalesce(to_json((('/files/')::text || (t0."cover")::text)), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j FROM "_event_row" t0
-- params ["1"]
-- apply none=notFound
UPDATE "posts" SET "title" = $1, "updated_at" = $2 WHERE "id" = $3
-- params ["Hello again","2026-01-02T03:04:05.678Z","1"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES ($1, $2, $3) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = $4 RETURNING "table_name", "version", "changed_at"
-- params ["posts#3",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- event previousParam=5
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" = $1 FOR UPDATE) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES ($2, $3, $4, $5, (SELECT format('{"id":%s,"title":%s,"body":%s,"author":%s,"status":%s,"publishedAt":%s,"tags":%s,"cover":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."title"), 'null'), coalesce(to_json(t0."body"), 'null'), coalesce(to_json(t0."author_id"), 'null'), coalesce(to_json(t0."status"), 'null'), coalesce(to_char((t0."published_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce((t0."tags")::json, 'null'), coalesce(to_json((('/files/')::text || (t0."cover")::text)), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j FROM "_event_row" t0), $6, $7, $8)
-- params ["1","evt_1","post.updated","1","{\"id\":null,\"role\":null,\"via\":\"system\"}",null,null,"2026-01-02T03:04:05.678Z"]
