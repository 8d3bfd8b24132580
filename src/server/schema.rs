//! What clients are shown of a tool's parameters: its derived JSON Schema
//! (`ToolEntry::input_schema`) trimmed to what a caller needs. Both edges
//! show it: tools/list, and `sextant <tool> --help`.
//!
//! Every byte of tools/list is loaded into every conversation of the
//! agent, so the schema says only a property's type and description, `enum`
//! lists for choices, and `required`. schemars' `null` in the types of
//! optional parameters (they are simply not `required`), its
//! `format`/`minimum` annotations and its one-of-consts enums go; unknown
//! keys are refused by `tools::call` whatever the schema says. The `format`
//! parameter every tool takes is said once, in the server's instructions,
//! rather than in every schema (no schema forbids other properties).

use serde_json::{Map, Value};

/// `schema` (a tool's derived parameter schema) as clients are shown it.
pub fn compact(mut schema: Map<String, Value>) -> Map<String, Value> {
    schema.remove("$schema");
    schema.remove("title");
    // A flattened part's doc comment (the address's) is for the code's
    // readers.
    schema.remove("description");
    schema.remove("additionalProperties");
    schema.insert("type".into(), Value::String("object".into()));
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        for property in properties.values_mut() {
            compact_property(property);
        }
    }
    schema
}

/// One property's schema, as little as says the same to a caller.
fn compact_property(property: &mut Value) {
    let Value::Object(map) = property else {
        return;
    };
    map.remove("format");
    map.remove("minimum");
    map.remove("maximum");
    map.remove("default");
    map.remove("additionalProperties");
    // `Option<T>`: `["integer", "null"]`, or `anyOf: [T, {"type": "null"}]`.
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(any_of)) = map.get("anyOf") {
        let mut kept: Vec<Value> = any_of
            .iter()
            .filter(|schema| schema.get("type") != Some(&Value::String("null".into())))
            .cloned()
            .collect();
        if kept.len() == 1
            && let Value::Object(inner) = kept.remove(0)
        {
            map.remove("anyOf");
            // The property says what it is for; its type's doc comment
            // is for the code's readers.
            for (key, value) in inner.into_iter().filter(|(key, _)| key != "description") {
                map.entry(key).or_insert(value);
            }
        }
    }
    // A Rust enum of unit variants: `oneOf` of consts -> one `enum` list.
    if let Some(Value::Array(one_of)) = map.get("oneOf") {
        let consts: Option<Vec<Value>> = one_of.iter().map(|v| v.get("const").cloned()).collect();
        if let Some(consts) = consts {
            map.remove("oneOf");
            map.insert("type".into(), Value::String("string".into()));
            map.insert("enum".into(), Value::Array(consts));
        }
    }
    if let Some(Value::Array(choices)) = map.get_mut("enum") {
        choices.retain(|choice| !choice.is_null());
    }
    if let Some(items) = map.get_mut("items") {
        compact_property(items);
        if let Value::Object(items) = items {
            items.remove("description");
        }
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for property in properties.values_mut() {
            compact_property(property);
        }
    }
}
