//! Reading the names a host surface declares for one type: the members of
//! a TypeScript interface, a WIT record, a Python stub class or the keyword
//! arguments of a stub function, the properties of an MCP tool schema.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// One host surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Python,
    Node,
    Wasm,
    Wit,
    Mcp,
}

impl Host {
    /// A snake_case field's name under this host's convention.
    pub fn spell(self, field: &str) -> String {
        match self {
            Host::Python | Host::Mcp => field.to_owned(),
            Host::Wit => field.replace('_', "-"),
            Host::Node | Host::Wasm => {
                let mut out = String::new();
                let mut upper = false;
                for c in field.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.extend(c.to_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
        }
    }
}

/// Where a type's fields are declared in a text surface.
#[derive(Debug, Clone, Copy)]
pub enum Block {
    /// `export interface NAME {` ... `}` (TypeScript).
    Interface(&'static str),
    /// `record NAME {` ... `}` (WIT).
    Record(&'static str),
    /// `class NAME` and its indented body (Python stubs): properties and
    /// attributes.
    Class(&'static str),
    /// A module-level stub function from the line starting with this text
    /// to its `) ->`: its parameters.
    Keywords(&'static str),
}

/// Where a type's fields are declared in the MCP golden tool schemas.
#[derive(Debug, Clone, Copy)]
pub enum Mcp {
    /// The tool's input properties.
    Input(&'static str),
    /// The properties of every branch of the tool's output.
    Output(&'static str),
    /// The properties of one `$defs` entry of the tool's output.
    Def(&'static str, &'static str),
}

/// The names one surface declares for one type.
#[derive(Debug, Clone)]
pub struct Surface {
    /// The file and block, for messages.
    pub what: String,
    names: BTreeSet<String>,
}

pub fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The identifier a member line declares (`name?: T`, `name: T`,
/// `def name(self)`), if it declares one.
fn member(line: &str) -> Option<String> {
    let line = line.trim();
    if line.starts_with("//")
        || line.starts_with('*')
        || line.starts_with("/*")
        || line.starts_with('#')
    {
        return None;
    }
    let line = line.strip_prefix("def ").unwrap_or(line);
    let line = line.strip_prefix("readonly ").unwrap_or(line);
    let end = line.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))?;
    let rest = &line[end..];
    (end > 0 && (rest.starts_with(':') || rest.starts_with("?:") || rest.starts_with("(self")))
        .then(|| line[..end].to_owned())
}

/// Whether a line starts or ends a block.
type LineTest = Box<dyn Fn(&str) -> bool>;

fn block_names(text: &str, block: Block) -> BTreeSet<String> {
    let lines: Vec<&str> = text.lines().collect();
    let (starts, ends): (LineTest, LineTest) = match block {
        Block::Interface(name) => {
            let head = format!("export interface {name} {{");
            (
                Box::new(move |l: &str| l == head),
                Box::new(|l: &str| l == "}"),
            )
        }
        Block::Record(name) => {
            let head = format!("record {name} {{");
            (
                Box::new(move |l: &str| l.trim() == head),
                Box::new(|l: &str| l.trim() == "}"),
            )
        }
        Block::Class(name) => {
            let (a, b) = (format!("class {name}:"), format!("class {name}("));
            (
                Box::new(move |l: &str| l.starts_with(&a) || l.starts_with(&b)),
                Box::new(|l: &str| !l.is_empty() && !l.starts_with(' ')),
            )
        }
        Block::Keywords(head) => (
            Box::new(move |l: &str| l.starts_with(head)),
            Box::new(|l: &str| l.starts_with(")")),
        ),
    };
    let start = lines
        .iter()
        .position(|l| starts(l))
        .unwrap_or_else(|| panic!("no {block:?}"));
    lines[start + 1..]
        .iter()
        .take_while(|l| !ends(l))
        .filter_map(|l| member(l))
        .collect()
}

fn mcp_names(mcp: Mcp) -> BTreeSet<String> {
    let tools: serde_json::Value =
        serde_json::from_str(&read("mcp/tests/golden/tools.json")).expect("golden JSON");
    let tool_name = match mcp {
        Mcp::Input(t) | Mcp::Output(t) | Mcp::Def(t, _) => t,
    };
    let tool = tools
        .as_array()
        .and_then(|a| a.iter().find(|t| t["name"] == tool_name))
        .unwrap_or_else(|| panic!("no MCP tool {tool_name}"));
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v["properties"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    match mcp {
        Mcp::Input(_) => keys(&tool["inputSchema"]).into_iter().collect(),
        Mcp::Output(_) => {
            let out = &tool["outputSchema"];
            let mut names: BTreeSet<String> = keys(out).into_iter().collect();
            for branch in out["anyOf"].as_array().into_iter().flatten() {
                names.extend(keys(branch));
            }
            names
        }
        Mcp::Def(_, def) => keys(&tool["outputSchema"]["$defs"][def])
            .into_iter()
            .collect(),
    }
}

impl Surface {
    /// The names `block` of the file at `relative` declares.
    pub fn new(relative: &str, block: Block) -> Surface {
        Surface {
            what: format!("{relative} {block:?}"),
            names: block_names(&read(relative), block),
        }
    }

    /// The names an MCP golden schema declares.
    pub fn mcp(mcp: Mcp) -> Surface {
        Surface {
            what: format!("mcp/tests/golden/tools.json {mcp:?}"),
            names: mcp_names(mcp),
        }
    }

    /// Whether the surface declares `name`.
    pub fn names(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// This surface with `name` taken out (for the test of the test).
    pub fn without(&self, name: &str) -> Surface {
        let mut cut = self.clone();
        cut.names.remove(name);
        cut
    }
}
