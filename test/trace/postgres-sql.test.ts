import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bindSql, parseSql, sqlLiteral } from "../../src/trace/postgres/sql.js";

const sql = (text: string, ...params: unknown[]) => bindSql(parseSql(text), params);

describe("the trace's SQL in PostgreSQL's dialect", () => {
  it("binds parameters outside quotes only, and translates code outside them only", () => {
    expect(sql("SELECT * FROM events WHERE name LIKE ? AND type = 'a?b'", "x%")).toBe(
      "SELECT * FROM events WHERE name ILIKE 'x%' AND type = 'a?b'",
    );
    expect(sql(`SELECT "we?ird""name" FROM t WHERE a = @a AND b = ':c LIKE'`, { a: "it's" })).toBe(
      `SELECT "we?ird""name" FROM t WHERE a = 'it''s' AND b = ':c LIKE'`,
    );
    expect(sql("SELECT 'don''t ?' , ? FROM t", 7)).toBe("SELECT 'don''t ?' , 7 FROM t");
    expect(sql("SELECT payload::json FROM events LIMIT -1")).toBe(
      "SELECT payload::json FROM events LIMIT ALL",
    );
    // An unterminated literal keeps the rest as it is: nothing inside it is taken for a parameter.
    expect(parseSql("SELECT 'open ? @x").slots).toEqual([]);
    expect(() => sql("SELECT @missing")).toThrow(/Missing named parameter 'missing'/);
  });

  it("leaves any quoted text as it is and binds every parameter outside it (generated, fixed seed)", () => {
    const quoted = fc
      .string({ unit: fc.constantFrom("a", "?", "@", ":", "'", '"', " ", "LIKE", "x") })
      .chain((body) => fc.constantFrom("'", '"').map((q) => `${q}${body.replaceAll(q, q + q)}${q}`));
    const parts = fc.array(fc.oneof(quoted, fc.constant(" = ? "), fc.constant(" AND ")), { maxLength: 12 });
    fc.assert(
      fc.property(parts, (pieces) => {
        const text = `SELECT 1 WHERE 1${pieces.join("")}`;
        const slots = pieces.filter((piece) => piece === " = ? ").length;
        const values = Array.from({ length: slots }, (_v, i) => i);
        expect(parseSql(text).slots).toHaveLength(slots);
        let next = 0;
        const expected = `SELECT 1 WHERE 1${pieces.map((piece) => (piece === " = ? " ? ` = ${next++} ` : piece)).join("")}`;
        expect(bindSql(parseSql(text), values)).toBe(expected);
      }),
      { seed: 20261203, numRuns: 300 },
    );
  });

  it("quotes values as standard literals; NUL becomes U+FFFD", () => {
    expect(sqlLiteral("a'b\u0000c")).toBe("'a''b\uFFFDc'");
    expect(sqlLiteral(null)).toBe("NULL");
    expect(sqlLiteral(Number.NaN)).toBe("'NaN'");
    expect(sqlLiteral({ k: "v" })).toBe(`'{"k":"v"}'`);
  });
});
