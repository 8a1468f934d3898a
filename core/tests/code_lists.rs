//! Every binding's list of error codes is the core's `ErrorCode::ALL`:
//! the TypeScript unions of the Node and wasm packages, the WIT enum and
//! the component's mapping to it, and the Python stubs' classes. (Each
//! binding's own tests check its runtime list against the core too.)

use std::fs;
use std::path::Path;

use agent_checkpoint::ErrorCode;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn snake_names() -> Vec<String> {
    ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect()
}

/// The quoted names of `export type ErrorCode = ...` in `text`, in order.
fn ts_union(text: &str, quote: char) -> Vec<String> {
    let start = text
        .find("export type ErrorCode =")
        .expect("an ErrorCode union");
    let rest = &text[start..];
    // A `;` ends the wasm package's union; a blank line ends napi's.
    let end = [rest.find(';'), rest.find("\n\n")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    let union = &rest[..end];
    union
        .split(quote)
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn node_typescript_union_is_the_core_list() {
    assert_eq!(
        ts_union(&read("bindings-node/index.d.ts"), '\''),
        snake_names()
    );
}

#[test]
fn wasm_typescript_union_is_the_core_list() {
    assert_eq!(
        ts_union(&read("bindings-wasm/src/lib.rs"), '"'),
        snake_names()
    );
}

#[test]
fn wit_enum_and_component_mapping_are_the_core_list() {
    let wit = read("bindings-wasm/component/wit/checkpoint.wit");
    let start = wit.find("enum error-code {").expect("the WIT enum");
    let body = &wit[start..];
    let body = &body[body.find('{').unwrap_or(0) + 1..body.find('}').unwrap_or(0)];
    let names: Vec<String> = body
        .lines()
        .map(|l| l.trim().trim_end_matches(','))
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(str::to_owned)
        .collect();
    let kebab: Vec<String> = ErrorCode::ALL.iter().map(|c| c.as_kebab()).collect();
    assert_eq!(names, kebab);
    let mapping = read("bindings-wasm/component/src/errors.rs");
    for code in ErrorCode::ALL {
        let arm = format!("Core::{0} => ErrorCode::{0},", code.as_pascal());
        assert!(mapping.contains(&arm), "component errors.rs lacks `{arm}`");
    }
}

#[test]
fn python_stub_declares_one_class_per_code() {
    let stub = read("bindings-py/python/agent_checkpoint/_native.pyi");
    let declared: Vec<&str> = stub
        .lines()
        .filter_map(|l| l.strip_prefix("class "))
        .filter_map(|l| l.split('(').next())
        .filter(|name| name.ends_with("Error") && *name != "CheckpointError")
        .collect();
    let expected: Vec<String> = ErrorCode::ALL
        .iter()
        .map(|c| {
            let name = format!("{}Error", c.as_pascal());
            // The binding prefixes names that would shadow a Python built-in.
            if name == "NotADirectoryError" {
                format!("Checkpoint{name}")
            } else {
                name
            }
        })
        .collect();
    assert_eq!(declared, expected);
}
