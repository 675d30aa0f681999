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
  ],
  "deprecations": []
}
-- sqlite
SELECT t4.j AS j, t4.o0, m.* FROM (SELECT (SELECT count(*) FROM "users" t0 WHERE t0."id" = +?) AS parent_found, (SELECT count(*) FROM "posts" t1 WHERE t1."author_id" = +? AND ((t1._rowid_ & 255) <> 0 OR diglot_deadline()) AND (t1."status" = +? OR t1."published_at" IS NULL)) AS total) m LEFT JOIN (SELECT (rtrim(json_object('title', t2."title"), '}') || ',"author":' || coalesce((SELECT json_object('name', t3."name") FROM "users" t3 WHERE t3."id" = t2."author_id"), 'null') || '}') AS j, t2."id" AS o0 FROM "posts" t2 WHERE t2."author_id" = +? AND ((t2._rowid_ & 255) <> 0 OR diglot_deadline()) AND (t2."status" = +? OR t2."published_at" IS NULL) ORDER BY (char(length(t2."id")) || t2."id") ASC LIMIT +? + 1) t4 ON 1=1 ORDER BY (char(length(t4.o0)) || t4.o0) ASC NULLS LAST
-- postgres
SELECT t4.j AS j, t4.o0, m.* FROM (SELECT (SELECT count(*) FROM "users" t0 WHERE t0."id" = $1) AS parent_found, (SELECT count(*) FROM "posts" t1 WHERE t1."author_id" = $2 AND (t1."status" = $3 OR t1."published_at" IS NULL)) AS total) m LEFT JOIN (SELECT ('{"title":' || coalesce(to_json(t2."title"), 'null') || ',"author":' || coalesce((SELECT ('{"name":' || coalesce(to_json(t3."name"), 'null') || '}') FROM "users" t3 WHERE t3."id" = t2."author_id"), 'null') || '}') AS j, t2."id" AS o0 FROM "posts" t2 WHERE t2."author_id" = $4 AND (t2."status" = $5 OR t2."published_at" IS NULL) ORDER BY length(t2."id") ASC, t2."id" ASC LIMIT $6 + 1) t4 ON 1=1 ORDER BY length(t4.o0) ASC NULLS LAST, t4.o0 ASC NULLS LAST
