-- plan
{
  "kind": "update",
  "type": "User",
  "id": "7",
  "values": {},
  "replace": false
}
-- sqlite: one transaction; clocks of []
-- previous
WITH "_event_row" AS (SELECT * FROM "users" WHERE "id" = +?) SELECT json_object('id', t0."id", 'name', t0."name", 'email', t0."email", 'username', t0."username", 'profilePicture', ('/files/' || t0."profile_picture"), 'bio', t0."bio", 'pronouns', t0."pronouns", 'location', t0."location", 'website', t0."website", 'company', t0."company", 'jobTitle', t0."job_title", 'phone', t0."phone", 'birthday', t0."birthday", 'timezone', t0."timezone", 'locale', t0."locale", 'role', t0."role", 'isVerified', CASE t0."is_verified" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END, 'isPrivate', CASE t0."is_private" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END, 'emailNotifications', CASE t0."email_notifications" WHEN 1 THEN x'01' WHEN 0 THEN x'02' END, 'theme', t0."theme", 'interests', json(t0."interests"), 'preferences', json(t0."preferences"), 'suspendedReason', t0."suspended_reason", 'lastSeenAt', t0."last_seen_at", 'handle', t0."handle", 'createdAt', t0."created_at", 'updatedAt', t0."updated_at") AS j FROM "_event_row" t0
-- params ["7"]
-- exists type=User id=7
SELECT 1 AS found FROM "users" WHERE "id" = +?
-- params ["7"]
-- postgres: one transaction; clocks of []
-- previous
WITH "_event_row" AS (SELECT * FROM "users" WHERE "id" = $1 FOR UPDATE) SELECT format('{"id":%s,"name":%s,"email":%s,"username":%s,"profilePicture":%s,"bio":%s,"pronouns":%s,"location":%s,"website":%s,"company":%s,"jobTitle":%s,"phone":%s,"birthday":%s,"timezone":%s,"locale":%s,"role":%s,"isVerified":%s,"isPrivate":%s,"emailNotifications":%s,"theme":%s,"interests":%s,"preferences":%s,"suspendedReason":%s,"lastSeenAt":%s,"handle":%s,"createdAt":%s,"updatedAt":%s}', coalesce(to_json(t0."id"), 'null'), coalesce(to_json(t0."name"), 'null'), coalesce(to_json(t0."email"), 'null'), coalesce(to_json(t0."username"), 'null'), coalesce(to_json((('/files/')::text || (t0."profile_picture")::text)), 'null'), coalesce(to_json(t0."bio"), 'null'), coalesce(to_json(t0."pronouns"), 'null'), coalesce(to_json(t0."location"), 'null'), coalesce(to_json(t0."website"), 'null'), coalesce(to_json(t0."company"), 'null'), coalesce(to_json(t0."job_title"), 'null'), coalesce(to_json(t0."phone"), 'null'), coalesce(to_char((t0."birthday") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_json(t0."timezone"), 'null'), coalesce(to_json(t0."locale"), 'null'), coalesce(to_json(t0."role"), 'null'), coalesce(to_json((t0."is_verified")), 'null'), coalesce(to_json((t0."is_private")), 'null'), coalesce(to_json((t0."email_notifications")), 'null'), coalesce(to_json(t0."theme"), 'null'), coalesce((t0."interests")::json, 'null'), coalesce((t0."preferences")::json, 'null'), coalesce(to_json(t0."suspended_reason"), 'null'), coalesce(to_char((t0."last_seen_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_json(t0."handle"), 'null'), coalesce(to_char((t0."created_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null'), coalesce(to_char((t0."updated_at") AT TIME ZONE 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\"'), 'null')) AS j FROM "_event_row" t0
-- params ["7"]
-- exists type=User id=7
SELECT 1 AS found FROM "users" WHERE "id" = $1
-- params ["7"]
