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
  ],
  "deprecations": []
}
-- sqlite
SELECT json_object('name', t0."name", 'profilePicture', ('/files/' || t0."profile_picture" || '/' || +?)) AS j FROM "users" t0 WHERE t0."id" = +?
-- postgres
SELECT ('{"name":' || coalesce(to_json(t0."name"), 'null') || ',"profilePicture":' || coalesce(to_json((('/files/')::text || (t0."profile_picture")::text || ('/')::text || ($1)::text)), 'null') || '}') AS j FROM "users" t0 WHERE t0."id" = $2
