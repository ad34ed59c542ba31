// trim.mjs writes catalog.json, the part of @pydantic/genai-prices' data
// that convert uses: for each model of the providers below, its names and
// its text-token prices (USD per million tokens). Run by generate.sh with
// the package's directory as argument; reads the data through the
// package's public findProvider, so nothing of its code is copied here.
import { pathToFileURL } from "node:url";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [pkgDir, out] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const { findProvider } = await import(pathToFileURL(join(pkgDir, "dist/index.js")).href);

// The providers whose models the coding agents name: first-party APIs
// only (resellers such as openrouter repeat their models at other prices).
const providers = ["anthropic", "openai", "google", "x-ai", "deepseek", "mistral", "moonshotai", "zai", "minimax"];
// The price kinds of the one token model, by genai-prices' key.
const kinds = {
  input_mtok: "input",
  output_mtok: "output",
  cache_read_mtok: "cache_read",
  cache_write_mtok: "cache_write",
  cache_write_1h_mtok: "cache_write_1h",
};

function price(v) {
  if (typeof v === "number") return v;
  // Tiered: base, then each tier's price from a request's input size on.
  return { base: v.base, tiers: v.tiers.map((t) => ({ start: t.start, price: t.price })) };
}

function prices(p) {
  const o = {};
  for (const [k, name] of Object.entries(kinds)) if (p[k] !== undefined) o[name] = price(p[k]);
  return o;
}

// match is genai-prices' match logic, kept as it is (equals, starts_with,
// ends_with, contains, regex, or, and).
const models = [];
for (const id of providers) {
  const p = findProvider({ providerId: id });
  if (!p || p.id !== id) throw new Error(`no provider ${id} in ${pkg.name}@${pkg.version}`);
  for (const m of p.models) {
    const conds = Array.isArray(m.prices) ? m.prices : [{ prices: m.prices }];
    // Prices by hour of day (off-peak discounts) are left out: the
    // standard price is the one without that constraint.
    const ps = conds.filter((c) => c.constraint?.type !== "time_of_date").map((c) => {
      const e = { prices: prices(c.prices) };
      if (c.constraint) {
        if (c.constraint.type !== "start_date") throw new Error(`${m.id}: constraint ${c.constraint.type}`);
        e.from = c.constraint.start_date;
      }
      return e;
    });
    // A model without input and output prices is not a chat model.
    if (!ps.some((e) => e.prices.input !== undefined && e.prices.output !== undefined)) continue;
    models.push({ provider: id, id: m.id, match: m.match, prices: ps });
  }
}

const doc = { source: `${pkg.name}@${pkg.version}`, models };
writeFileSync(out, JSON.stringify(doc, null, 0).replace(/\{"provider"/g, '\n{"provider"') + "\n");
