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
          "key": "title",
          "field": "title"
        },
        {
          "kind": "toOne",
          "key": "author",
          "field": "author",
          "node": {
            "type": "User",
            "select": [
              {
                "kind": "column",
                "key": "name",
                "field": "name"
              }
            ]
          }
        }
      ],
      "filter": {
        "op": "or",
        "items": [
          {
            "op": "eq",
            "field": "status",
            "value": {
              "param": 1
            }
          },
          {
            "op": "isNull",
            "field": "publishedAt",
            "value": true
          }
        ]
      },
      "order": [
        {
          "field": "id",
          "direction": "asc"
        }
      ],
      "page": {
        "limit": {
          "param": 2
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
    "totalCount": true
  },
  "params": [
    "1",
    "PUBLISHED",
    10
  ]
}
-- sqlite
SELECT t3.j AS j, t3.o0, m.* FROM (SELECT (SELECT count(*) FROM "users" WHERE "id" = +?) AS parent_found, (SELECT count(*) FROM "posts" t0 WHERE t0."author_id" = +? AND ((t0._rowid_ & 255) <> 0 OR diglot_deadline()) AND (t0."status" = +? OR t0."published_at" IS NULL)) AS total) m LEFT JOIN (SELECT (rtrim(json_object('title', t1."title"), '}') || ',"author":' || coalesce((SELECT json_object('name', t2."name") FROM "users" t2 WHERE t2."id" = t1."author_id"), 'null') || '}') AS j, t1."id" AS o0 FROM "posts" t1 WHERE t1."author_id" = +? AND ((t1._rowid_ & 255) <> 0 OR diglot_deadline()) AND (t1."status" = +? OR t1."published_at" IS NULL) ORDER BY t1."id" ASC LIMIT +? + 1) t3 ON 1=1 ORDER BY t3.o0 ASC NULLS LAST
-- postgres
SELECT t3.j AS j, t3.o0, m.* FROM (SELECT (SELECT count(*) FROM "users" WHERE "id" = $1) AS parent_found, (SELECT count(*) FROM "posts" t0 WHERE t0."author_id" = $2 AND (t0."status" = $3 OR t0."published_at" IS NULL)) AS total) m LEFT JOIN (SELECT ('{"title":' || coalesce(to_json(t1."title"), 'null') || ',"author":' || coalesce((SELECT ('{"name":' || coalesce(to_json(t2."name"), 'null') || '}') FROM "users" t2 WHERE t2."id" = t1."author_id"), 'null') || '}') AS j, t1."id" AS o0 FROM "posts" t1 WHERE t1."author_id" = $4 AND (t1."status" = $5 OR t1."published_at" IS NULL) ORDER BY t1."id" ASC LIMIT $6 + 1) t3 ON 1=1 ORDER BY t3.o0 ASC NULLS LAST
