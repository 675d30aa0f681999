/** A schema with something deprecated of every kind: a field with a sunset, an undated relation, an enum value, an image size argument, a whole type. */
export const DEPRECATIONS_SCHEMA = `
type Author {
  id: ID!
  name: String!
  nick: String @deprecated(reason: "Use name.", sunset: "2027-06-30")
  role: Role
  avatar(size: Int @deprecated(reason: "The server picks the size.")): String @image(sizes: [32, 64])
  books: [Book!]! @deprecated(reason: "Use /books?filter[author]=<id>.")
}

enum Role {
  WRITER
  EDITOR
  GUEST @deprecated(reason: "Use WRITER.", since: "2026-01-15")
}

type Book {
  id: ID!
  title: String!
  author: Author!
}

type Pamphlet @deprecated(reason: "Use Book.", since: "2026-03-01", sunset: "2027-01-31") {
  id: ID!
  title: String!
}
`;
