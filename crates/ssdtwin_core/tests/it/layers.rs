//! The module layering of `src/` (ARCHITECTURE.md, "Layers"): imports point down, never up, and
//! the file-level import graph has no cycle.
//!
//! Layers, lowest first: `base` 0, `observe` 1, the components `flash` and `reliability` 2, `ftl` 3, `controller` 4,
//! `host` 5, `workload` 6, the observers `power`, `metrics` and `thermal` beside them, the engine `sim` 8, the
//! scenario parser `config` 9, the crate root `lib.rs` 10. A file may import modules of its rank or
//! below; a component never imports an observer; an observer imports only `base`, `observe` and
//! itself; nothing below `config` imports `config`.
//!
//! An import is every path of a `use` item (`use crate::…`, `use super::…`, `use self::…`, `use
//! child::…` for a module declared in the file, groups expanded) and every path outside `use`
//! that starts with `crate::`, `super::`, `self::` or a declared child module, with comments and
//! string literals removed. It resolves to the file of the longest module prefix that is a file
//! (`a/b.rs` or `a/b/mod.rs`; inline modules such as `mod tests { … }` belong to their file).
//! `mod x;` declarations are not imports. A child file that imports its parent `mod.rs` while
//! that `mod.rs` imports or re-exports the child is a cycle like any other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::source_scan::{is_ident, strip, tokens, use_paths};

/// Exceptions to the rules, as (importing file, imported file): none. Each entry must still
/// occur, so the list can only shrink.
const ALLOWLIST: &[(&str, &str)] = &[];

/// Rank of a top-level module; `None` for an unknown module (the test fails on it).
fn rank(module: &str) -> Option<u32> {
    Some(match module {
        "base" => 0,
        "observe" => 1,
        "flash" | "reliability" => 2,
        "ftl" => 3,
        "controller" => 4,
        "host" => 5,
        "workload" => 6,
        "power" | "metrics" | "thermal" => 7,
        "sim" => 8,
        "config" => 9,
        "" => 10,
        _ => return None,
    })
}

fn is_observer(module: &str) -> bool {
    matches!(module, "power" | "metrics" | "thermal")
}

fn is_component(module: &str) -> bool {
    matches!(
        module,
        "flash" | "reliability" | "ftl" | "controller" | "host" | "workload"
    )
}

/// One resolved import.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Import {
    from: String,
    line: usize,
    path: String,
    to: String,
}

/// Module path of a source file relative to `src/`: `lib.rs` → [], `a/mod.rs` → [a], `a/b.rs` →
/// [a, b].
fn module_of(file: &str) -> Vec<String> {
    let stem = file.strip_suffix(".rs").expect("a .rs file");
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// Every import of `file` (relative to `src/`), resolved against `modules` (module path → file).
fn imports_of(file: &str, text: &str, modules: &BTreeMap<Vec<String>, String>) -> Vec<Import> {
    let tokens = tokens(&strip(text));
    let file_module = module_of(file);
    // Inline modules open at a brace depth; declared children per module path.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for window in tokens.windows(3) {
        if window[0].0 == "mod" && (window[2].0 == ";" || window[2].0 == "{") {
            children.entry(Vec::new()).or_default().insert(window[1].0.clone());
        }
    }
    let declared = children.get(&Vec::new()).cloned().unwrap_or_default();
    let mut depth = 0;
    let mut found = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let (token, _) = &tokens[at];
        let module: Vec<String> = file_module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(name, _)| name.clone()))
            .collect();
        match token.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|(_, open)| *open == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(at + 2).is_some_and(|token| token.0 == "{") => {
                inline.push((tokens[at + 1].0.clone(), depth));
                depth += 1;
                at += 3;
                continue;
            }
            "use" => {
                at += 1;
                for (path, line) in use_paths(&tokens, &mut at) {
                    found.extend(resolve(file, &module, &file_module, &declared, &path, line, modules));
                }
                continue;
            }
            _ if (token == "crate" || token == "super" || token == "self" || declared.contains(token))
                && tokens.get(at + 1).is_some_and(|token| token.0 == "::")
                && (at == 0 || tokens[at - 1].0 != "::") =>
            {
                let line = tokens[at].1;
                let mut path = vec![token.clone()];
                let mut next = at + 1;
                while tokens.get(next).is_some_and(|token| token.0 == "::")
                    && tokens
                        .get(next + 1)
                        .is_some_and(|token| is_ident(token.0.chars().next().as_ref()))
                {
                    path.push(tokens[next + 1].0.clone());
                    next += 2;
                }
                found.extend(resolve(file, &module, &file_module, &declared, &path, line, modules));
                at = next;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// The file a path names, if it is a path into this crate and not into `file` itself. `module`
/// is the (inline) module the path is written in, `file_module` the module of the file, whose
/// declared children `declared` are.
fn resolve(
    file: &str,
    module: &[String],
    file_module: &[String],
    declared: &BTreeSet<String>,
    path: &[String],
    line: usize,
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<Import> {
    let first = path.first()?;
    let mut absolute: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" | "super" => module.to_vec(),
        name if declared.contains(name) => file_module.to_vec(),
        _ => return None, // std, core, an external crate, or a local name.
    };
    let mut rest = path;
    while let Some(segment) = rest.first() {
        match segment.as_str() {
            "crate" | "self" => {}
            "super" => {
                absolute.pop();
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    absolute.extend(rest.iter().cloned());
    let to = (0..=absolute.len())
        .rev()
        .find_map(|length| modules.get(&absolute[..length]))?;
    (to != file).then(|| Import {
        from: file.to_string(),
        line,
        path: path.join("::"),
        to: to.clone(),
    })
}

/// Rank and observer violations, then cycles, of the files `sources` (path relative to `src/`,
/// text), leaving out the (from, to) pairs in `allowed`. Each problem names file, line and rule.
fn check(sources: &BTreeMap<String, String>, allowed: &[(&str, &str)]) -> (Vec<String>, BTreeSet<(String, String)>) {
    let modules: BTreeMap<Vec<String>, String> = sources.keys().map(|file| (module_of(file), file.clone())).collect();
    let mut problems = Vec::new();
    let mut used = BTreeSet::new();
    let mut edges: BTreeMap<(String, String), Import> = BTreeMap::new();
    for (file, text) in sources {
        for import in imports_of(file, text, &modules) {
            let pair = (import.from.clone(), import.to.clone());
            if allowed.contains(&(pair.0.as_str(), pair.1.as_str())) {
                used.insert(pair);
                continue;
            }
            let top = |file: &str| module_of(file).first().cloned().unwrap_or_default();
            let (from, to) = (top(&import.from), top(&import.to));
            let rule = match (rank(&from), rank(&to)) {
                (None, _) => Some(format!("module `{from}` has no layer")),
                (_, None) => Some(format!("module `{to}` has no layer")),
                _ if is_observer(&from) && from != to && !matches!(to.as_str(), "base" | "observe") => Some(format!(
                    "observer `{from}` imports `{to}`; an observer imports only base, observe and itself"
                )),
                _ if is_component(&from) && is_observer(&to) => {
                    Some(format!("component `{from}` imports observer `{to}`"))
                }
                (Some(low), Some(high)) if high > low => Some(format!(
                    "`{from}` (layer {low}) imports `{to}` (layer {high}): an import points up"
                )),
                _ => None,
            };
            if let Some(rule) = rule {
                problems.push(format!(
                    "src/{}:{}: `{}` -> src/{}: {rule}",
                    import.from, import.line, import.path, import.to
                ));
            }
            edges.entry(pair).or_insert(import);
        }
    }
    problems.extend(cycles(&edges));
    (problems, used)
}

/// Every strongly connected set of files of more than one, with the imports that join it.
fn cycles(edges: &BTreeMap<(String, String), Import>) -> Vec<String> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(from, to)| [from, to]).collect();
    let reaches = |start: &String| {
        let mut seen = BTreeSet::from([start.clone()]);
        let mut stack = vec![start.clone()];
        while let Some(node) = stack.pop() {
            for (from, to) in edges.keys() {
                if *from == node && seen.insert(to.clone()) {
                    stack.push(to.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|node| (*node, reaches(node))).collect();
    let mut reported = BTreeSet::new();
    let mut problems = Vec::new();
    for node in &nodes {
        let component: BTreeSet<String> = reach[node]
            .iter()
            .filter(|other| reach.get(other).is_some_and(|back| back.contains(*node)))
            .cloned()
            .collect();
        if component.len() > 1 && reported.insert(component.clone()) {
            let joins: Vec<String> = edges
                .iter()
                .filter(|((from, to), _)| component.contains(from) && component.contains(to))
                .map(|(_, import)| {
                    format!(
                        "src/{}:{} `{}` -> src/{}",
                        import.from, import.line, import.path, import.to
                    )
                })
                .collect();
            problems.push(format!(
                "import cycle among {} files: {}",
                component.len(),
                joins.join("; ")
            ));
        }
    }
    problems
}

fn sources_under(root: &Path) -> BTreeMap<String, String> {
    let mut sources = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let name = path
                    .strip_prefix(root)
                    .expect("under src")
                    .to_string_lossy()
                    .replace('\\', "/");
                sources.insert(name, std::fs::read_to_string(&path).expect("a readable source file"));
            }
        }
    }
    sources
}

#[test]
fn imports_point_down_and_form_no_cycle() {
    let sources = sources_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(sources.len() > 50, "found only {} source files", sources.len());
    let (problems, used) = check(&sources, ALLOWLIST);
    let stale: Vec<_> = ALLOWLIST
        .iter()
        .filter(|(from, to)| !used.contains(&(from.to_string(), to.to_string())))
        .collect();
    assert!(
        problems.is_empty() && stale.is_empty(),
        "layering broken:\n{}\nallowlist entries that no longer occur (remove them): {stale:?}",
        problems.join("\n")
    );
}

fn synthetic(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(file, text)| (file.to_string(), text.to_string()))
        .collect()
}

#[test]
fn the_checker_catches_upward_imports_observer_reach_and_cycles() {
    let sources = synthetic(&[
        (
            "lib.rs",
            "pub mod base; pub mod flash; pub mod ftl; pub mod power; pub mod sim;",
        ),
        ("base/mod.rs", "pub mod time;"),
        ("base/time.rs", "pub struct Time;"),
        // An upward import in a multi-line group, after a comment that must not count.
        (
            "flash/mod.rs",
            "// use crate::sim::Engine;\npub mod geometry;\nuse crate::{\n    base::time::Time,\n    sim::Engine,\n};",
        ),
        // A child importing its parent mod.rs, which dispatches to it inline: a cycle.
        (
            "flash/geometry.rs",
            "use super::Channel;\nlet text = \"crate::sim::Engine\";",
        ),
        ("ftl/mod.rs", "fn f() { let x = crate::power::Model::new(); }"),
        (
            "power/mod.rs",
            "use crate::flash::geometry::Geometry;\nuse crate::base::time::Time;",
        ),
        (
            "sim/mod.rs",
            "pub struct Engine; mod tests { use super::*; use crate::flash::Channel; }",
        ),
    ]);
    let mut with_dispatch = sources.clone();
    with_dispatch.insert(
        "flash/mod.rs".into(),
        "pub mod geometry;\npub struct Channel;\nfn g() { geometry::Geometry::new() }".into(),
    );
    let (problems, _) = check(&sources, &[]);
    let text = problems.join("\n");
    assert!(
        text.contains("src/flash/mod.rs:5: `crate::sim::Engine` -> src/sim/mod.rs")
            && text.contains("import points up"),
        "{text}"
    );
    assert!(!text.contains("flash/mod.rs:1:"), "a comment is not an import: {text}");
    assert!(
        !text.contains("flash/geometry.rs:2"),
        "a string is not an import: {text}"
    );
    assert!(text.contains("src/ftl/mod.rs:1: `crate::power::Model::new` -> src/power/mod.rs: component `ftl` imports observer `power`"), "{text}");
    assert!(
        text.contains("src/power/mod.rs:1:") && text.contains("an observer imports only base, observe and itself"),
        "{text}"
    );
    assert!(
        !text.contains("src/power/mod.rs:2:"),
        "an observer may import base: {text}"
    );
    assert!(
        !text.contains("src/sim/mod.rs:1:"),
        "the engine may import components: {text}"
    );
    let (problems, _) = check(&with_dispatch, &[]);
    let text = problems.join("\n");
    assert!(
        text.contains("import cycle among 2 files")
            && text.contains("src/flash/geometry.rs:1 `super::Channel` -> src/flash/mod.rs")
            && text.contains("src/flash/mod.rs:3 `geometry::Geometry::new` -> src/flash/geometry.rs"),
        "{text}"
    );
    let (problems, used) = check(&with_dispatch, &[("flash/geometry.rs", "flash/mod.rs")]);
    assert!(
        !problems.join("\n").contains("cycle"),
        "an allowed edge breaks the cycle: {problems:?}"
    );
    assert_eq!(used.len(), 1);
}
