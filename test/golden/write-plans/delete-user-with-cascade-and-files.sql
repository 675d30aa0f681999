-- plan
{
  "kind": "delete",
  "type": "User",
  "id": "7"
}
-- sqlite: one transaction; clocks of ["posts","users","users_followers"]
-- lock
UPDATE "users" SET "id" = "id" WHERE "id" = +?
-- params ["7"]
-- cascade: referrers Post.author -> User CASCADE
SELECT t0."id" AS id, 1 AS visible, 1 AS allowed FROM "posts" t0 WHERE t0."author_id" IN (SELECT value AS id FROM json_each(+?)) LIMIT 1001
-- params ["[\"7\"]"]
-- cascade: restricting Order.customer -> User RESTRICT
SELECT count(*) AS total, coalesce(sum(1), 0) AS visible FROM "orders" t0 WHERE t0."customer_id" IN (SELECT value AS id FROM json_each(+?))
-- params ["[\"7\"]"]
-- cascade: events Post deleted
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" IN (SELECT value AS id FROM json_each(+?))) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") SELECT (CAST(+? AS TEXT) || x."id"), CAST(+? AS TEXT), x."id", CAST(+? AS TEXT), NULL, x."j", NULL, CAST(+? AS TEXT) FROM (SELECT json_object('id', t0."id", 'title', t0."title", 'body', t0."body", 'author', t0."author_id", 'status', t0."status", 'publishedAt', t0."published_at", 'tags', json(t0."tags"), 'cover', ('/files/' || t0."cover"), 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j, t0."id" AS id FROM "_event_row" t0) x
-- params ["[\"7\"]","evt_2_","post.deleted","{\"id\":null,\"role\":null,\"via\":\"system\"}","2026-01-02T03:04:05.678Z"]
-- cascade: files Post columns=cover
SELECT "cover" FROM "posts" WHERE "id" IN (SELECT value AS id FROM json_each(+?))
-- params ["[\"7\"]"]
-- files columns=profile_picture
SELECT "profile_picture" FROM "users" WHERE "id" = +?
-- params ["7"]
-- event
WITH "_event_row" AS (SELECT * FROM "users" WHERE "id" = +?) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES (+?, +?, +?, +?, +?, (SELECT json_object('id', t0."id", 'name', t0."name", 'email', t0."email", 'username', t0."username", 'profilePicture', ('/files/' || t0."profile_picture"), 'bio', t0."bio", 'pronouns', t0."pronouns", 'location', t0."location", 'website', t0."website", 'company', t0."company", 'jobTitle', t0."job_title", 'phone', t0."phone", 'birthday', t0."birthday", 'timezone', t0."timezone", 'locale', t0."locale", 'role', t0."role", 'isVerified', CASE t0."is_verified" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END, 'isPrivate', CASE t0."is_private" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END, 'emailNotifications', CASE t0."email_notifications" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END, 'theme', t0."theme", 'interests', json(t0."interests"), 'preferences', json(t0."preferences"), 'suspendedReason', t0."suspended_reason", 'lastSeenAt', t0."last_seen_at", 'handle', t0."handle", 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j FROM "_event_row" t0), +?, +?)
-- params ["7","evt_1","user.deleted","7","{\"id\":null,\"role\":null,\"via\":\"system\"}",null,null,"2026-01-02T03:04:05.678Z"]
-- apply none=notFound
DELETE FROM "users" WHERE "id" = +?
-- params ["7"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES (+?, +?, +?) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = +? RETURNING "table_name", "version", "changed_at"
-- params ["posts",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES (+?, +?, +?) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = +? RETURNING "table_name", "version", "changed_at"
-- params ["users",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES (+?, +?, +?) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = +? RETURNING "table_name", "version", "changed_at"
-- params ["users_followers",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- postgres: one transaction; clocks of ["posts","users","users_followers"]
-- lock
SELECT "id" FROM "users" WHERE "id" = $1 FOR UPDATE
-- params ["7"]
-- cascade: referrers Post.author -> User CASCADE
SELECT t0."id" AS id, 1 AS visible, 1 AS allowed FROM "posts" t0 WHERE t0."author_id" IN (SELECT json_array_elements_text($1::json) AS id) LIMIT 1001 FOR UPDATE
-- params ["[\"7\"]"]
-- cascade: restricting Order.customer -> User RESTRICT
SELECT count(*) AS total, coalesce(sum(1), 0) AS visible FROM "orders" t0 WHERE t0."customer_id" IN (SELECT json_array_elements_text($1::json) AS id)
-- params ["[\"7\"]"]
-- cascade: events Post deleted
WITH "_event_row" AS (SELECT * FROM "posts" WHERE "id" IN (SELECT json_array_elements_text($1::json) AS id)) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") SELECT ((CAST($2 AS TEXT))::text || (x."id")::text), CAST($3 AS TEXT), x."id", CAST($4 AS TEXT), NULL, x."j", NULL, CAST($5 AS timestamp with time zone) FROM (SELECT format('{"id":%s,"title":%s,"body":%s,"author":%s,"status":%s,"publishedAt":%s,"tags":%s,"cover":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."title"), 'null'), coalesce(to_json(t0."body"), 'null'), coalesce(to_json(t0."author_id"), 'null'), coalesce(to_json(t0."status"), 'null'), coalesce(to_char((t0."published_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce((t0."tags")::json, 'null'), coalesce(to_json((('/files/')::text || (t0."cover")::text)), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j, t0."id" AS id FROM "_event_row" t0) x
-- params ["[\"7\"]","evt_2_","post.deleted","{\"id\":null,\"role\":null,\"via\":\"system\"}","2026-01-02T03:04:05.678Z"]
-- cascade: files Post columns=cover
SELECT "cover" FROM "posts" WHERE "id" IN (SELECT json_array_elements_text($1::json) AS id)
-- params ["[\"7\"]"]
-- files columns=profile_picture
SELECT "profile_picture" FROM "users" WHERE "id" = $1
-- params ["7"]
-- event
WITH "_event_row" AS (SELECT * FROM "users" WHERE "id" = $1 FOR UPDATE) INSERT INTO "_diglot_events" ("id", "type", "record_id", "principal", "record", "previous", "target", "created_at") VALUES ($2, $3, $4, $5, $6, (SELECT format('{"id":%s,"name":%s,"email":%s,"username":%s,"profilePicture":%s,"bio":%s,"pronouns":%s,"location":%s,"website":%s,"company":%s,"jobTitle":%s,"phone":%s,"birthday":%s,"timezone":%s,"locale":%s,"role":%s,"isVerified":%s,"isPrivate":%s,"emailNotifications":%s,"theme":%s,"interests":%s,"preferences":%s,"suspendedReason":%s,"lastSeenAt":%s,"handle":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."name"), 'null'), coalesce(to_json(t0."email"), 'null'), coalesce(to_json(t0."username"), 'null'), coalesce(to_json((('/files/')::text || (t0."profile_picture")::text)), 'null'), coalesce(to_json(t0."bio"), 'null'), coalesce(to_json(t0."pronouns"), 'null'), coalesce(to_json(t0."location"), 'null'), coalesce(to_json(t0."website"), 'null'), coalesce(to_json(t0."company"), 'null'), coalesce(to_json(t0."job_title"), 'null'), coalesce(to_json(t0."phone"), 'null'), coalesce(to_char((t0."birthday") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_json(t0."timezone"), 'null'), coalesce(to_json(t0."locale"), 'null'), coalesce(to_json(t0."role"), 'null'), coalesce(to_json((t0."is_verified")), 'null'), coalesce(to_json((t0."is_private")), 'null'), coalesce(to_json((t0."email_notifications")), 'null'), coalesce(to_json(t0."theme"), 'null'), coalesce((t0."interests")::json, 'null'), coalesce((t0."preferences")::json, 'null'), coalesce(to_json(t0."suspended_reason"), 'null'), coalesce(to_char((t0."last_seen_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_json(t0."handle"), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j FROM "_event_row" t0), $7, $8)
-- params ["7","evt_1","user.deleted","7","{\"id\":null,\"role\":null,\"via\":\"system\"}",null,null,"2026-01-02T03:04:05.678Z"]
-- apply none=notFound
DELETE FROM "users" WHERE "id" = $1
-- params ["7"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES ($1, $2, $3) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = $4 RETURNING "table_name", "version", "changed_at"
-- params ["posts#3",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES ($1, $2, $3) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = $4 RETURNING "table_name", "version", "changed_at"
-- params ["users#3",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
-- clock
INSERT INTO "_diglot_clock" ("table_name", "version", "changed_at") VALUES ($1, $2, $3) ON CONFLICT ("table_name") DO UPDATE SET "version" = "_diglot_clock"."version" + 1, "changed_at" = $4 RETURNING "table_name", "version", "changed_at"
-- params ["users_followers#3",274877906945,"2026-01-02T03:04:05.678Z","2026-01-02T03:04:05.678Z"]
