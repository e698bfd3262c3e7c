//! Checks a JSON value against a game's payload schema (PROTOCOL.md, "Payload schemas"), naming
//! the first field that does not fit by its path (`observation.hand[3]`). It reads the part of
//! draft 2020-12 that the payload schemas use (`$ref` into `$defs`, `type`, `enum`, `const`,
//! `minimum`/`maximum`, `properties`/`required`/`additionalProperties`,
//! `items`/`prefixItems`/`minItems`/`maxItems`, `anyOf`/`oneOf`/`allOf`); other keywords pass.
//! The import of recorded human games checks each line's observation and action with it.

use serde_json::{Map, Value};

/// Checks `value` against `schema` (a whole document: its `$ref`s resolve inside it); `what`
/// names the value in the error: "`what.field[2]`: must be a string, not 5".
pub fn check(schema: &Value, value: &Value, what: &str) -> Result<(), String> {
    Checker { root: schema, depth: 0 }.fits(schema, value, what)
}

/// References followed within one check at most: a schema that refers to itself ends here.
const MAX_DEPTH: usize = 64;

struct Checker<'a> {
    root: &'a Value,
    depth: usize,
}

impl Checker<'_> {
    fn fits(&mut self, schema: &Value, value: &Value, path: &str) -> Result<(), String> {
        let fail = |what: String| Err(format!("`{path}`: {what}"));
        let rules = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return fail("is not allowed here".into()),
            Value::Object(rules) => rules,
            _ => return Ok(()),
        };
        if let Some(reference) = rules.get("$ref").and_then(Value::as_str) {
            let target = reference.strip_prefix('#').and_then(|p| self.root.pointer(p));
            let Some(target) = target else {
                return fail(format!("unknown reference {reference}"));
            };
            if self.depth >= MAX_DEPTH {
                return fail("nests deeper than the schema may".into());
            }
            self.depth += 1;
            let fits = self.fits(target, value, path);
            self.depth -= 1;
            fits?;
        }
        if let Some(types) = rules.get("type") {
            let allowed: Vec<&str> = match types {
                Value::String(t) => vec![t],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !allowed.is_empty() && !allowed.iter().any(|t| is_type(value, t)) {
                return fail(format!("must be {}, not {value}", allowed.join(" or ")));
            }
        }
        if let Some(Value::Array(options)) = rules.get("enum") {
            if !options.contains(value) {
                let listed: Vec<String> = options.iter().map(Value::to_string).collect();
                return fail(format!("must be one of {}, not {value}", listed.join(", ")));
            }
        }
        if let Some(constant) = rules.get("const").filter(|c| *c != value) {
            return fail(format!("must be {constant}, not {value}"));
        }
        if let Some(n) = value.as_f64() {
            let below = rules.get("minimum").and_then(Value::as_f64).filter(|min| n < *min);
            let above = rules.get("maximum").and_then(Value::as_f64).filter(|max| n > *max);
            if let Some(bound) = below {
                return fail(format!("must be at least {bound}, not {value}"));
            }
            if let Some(bound) = above {
                return fail(format!("must be at most {bound}, not {value}"));
            }
        }
        match value {
            Value::Object(fields) => self.object(rules, fields, path)?,
            Value::Array(items) => self.array(rules, items, path)?,
            _ => {}
        }
        for (keyword, needed) in [("anyOf", 1..=usize::MAX), ("oneOf", 1..=1)] {
            if let Some(Value::Array(branches)) = rules.get(keyword) {
                let mut errors = Vec::new();
                for branch in branches {
                    if let Err(e) = self.fits(branch, value, path) {
                        errors.push(e);
                    }
                }
                // Fitting none, the first form's misfit is the one named (the likeliest meant).
                if !needed.contains(&(branches.len() - errors.len())) {
                    return match errors.into_iter().next() {
                        Some(first) => Err(first),
                        None => fail("fits more than one of its forms".into()),
                    };
                }
            }
        }
        if let Some(Value::Array(all)) = rules.get("allOf") {
            all.iter().try_for_each(|branch| self.fits(branch, value, path))?;
        }
        Ok(())
    }

    fn object(
        &mut self,
        rules: &Map<String, Value>,
        fields: &Map<String, Value>,
        path: &str,
    ) -> Result<(), String> {
        let empty = Map::new();
        let properties = rules.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        for required in rules.get("required").and_then(Value::as_array).into_iter().flatten() {
            let name = required.as_str().unwrap_or_default();
            if !fields.contains_key(name) {
                return Err(format!("`{path}.{name}`: missing"));
            }
        }
        for (name, field) in fields {
            let at = format!("{path}.{name}");
            match (properties.get(name), rules.get("additionalProperties")) {
                (Some(schema), _) | (None, Some(schema)) => self.fits(schema, field, &at)?,
                (None, None) => {}
            }
        }
        Ok(())
    }

    fn array(
        &mut self,
        rules: &Map<String, Value>,
        items: &[Value],
        path: &str,
    ) -> Result<(), String> {
        let count = |keyword: &str| rules.get(keyword).and_then(Value::as_u64);
        if let Some(min) = count("minItems").filter(|min| (items.len() as u64) < *min) {
            return Err(format!("`{path}`: must hold at least {min} items, not {}", items.len()));
        }
        if let Some(max) = count("maxItems").filter(|max| (items.len() as u64) > *max) {
            return Err(format!("`{path}`: must hold at most {max} items, not {}", items.len()));
        }
        let prefix = rules.get("prefixItems").and_then(Value::as_array);
        let prefix = prefix.map_or(&[][..], Vec::as_slice);
        for (i, item) in items.iter().enumerate() {
            let schema = prefix.get(i).or_else(|| rules.get("items"));
            if let Some(schema) = schema {
                self.fits(schema, item, &format!("{path}[{i}]"))?;
            }
        }
        Ok(())
    }
}

/// Whether `value` is of JSON Schema type `name`.
fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["hand"],
            "properties": {
                "hand": {"type": "array", "items": {"$ref": "#/$defs/Card"}},
                "seat": {"type": "integer", "minimum": 0},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}],
                         "minItems": 2, "maxItems": 2},
                "last": {"anyOf": [{"$ref": "#/$defs/Card"}, {"type": "null"}]},
            },
            "$defs": {"Card": {"type": "string", "enum": ["A", "K"]}},
        })
    }

    #[test]
    fn a_misfit_is_named_by_its_path() {
        let s = schema();
        assert_eq!(check(&s, &json!({"hand": ["A"], "seat": 1, "last": null}), "o"), Ok(()));
        let cases = [
            (json!({}), "`o.hand`: missing"),
            (json!({"hand": ["A", "Q"]}), "`o.hand[1]`: must be one of \"A\", \"K\", not \"Q\""),
            (json!({"hand": [], "seat": -1}), "`o.seat`: must be at least 0, not -1"),
            (json!({"hand": [], "seat": "x"}), "`o.seat`: must be integer, not \"x\""),
            (json!({"hand": [], "pair": ["a"]}), "`o.pair`: must hold at least 2 items, not 1"),
            (json!({"hand": [], "pair": ["a", "b"]}), "`o.pair[1]`: must be number, not \"b\""),
            (json!([1]), "`o`: must be object, not [1]"),
        ];
        for (value, error) in cases {
            assert_eq!(check(&s, &value, "o").unwrap_err(), error, "{value}");
        }
        let last = check(&s, &json!({"hand": [], "last": 3}), "o").unwrap_err();
        assert_eq!(last, "`o.last`: must be string, not 3", "the first form's misfit");
    }

    #[test]
    fn a_schema_that_refers_to_itself_ends() {
        let s = json!({"$ref": "#"});
        assert!(check(&s, &json!(1), "o").unwrap_err().contains("deeper"));
    }
}
