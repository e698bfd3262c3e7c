//! The host's modules are layers: each may import only from its own layer and the layers below
//! it, so no import cycle can come back. This reads the sources and names every import that
//! reaches up; and inside every crate of the workspace, it names every circle of files that
//! import one another.

use std::path::{Path, PathBuf};

/// The layers, bottom first.
const LAYERS: &[&str] = &[
    "registry",
    "runtime",
    "agents",
    "matches",
    "tournament",
    "humans",
    "session",
    "ops",
    "server",
    "cli",
];

/// The layer of a source file, from its first path component under `src/`.
fn layer_of(relative: &Path) -> Option<usize> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let module = first.trim_end_matches(".rs");
    LAYERS.iter().position(|l| *l == module)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("host/src is readable") {
        let path = entry.expect("directory entries read").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::MODULE` the text names, with its line number.
fn crate_imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let module: String =
                rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            found.push((number + 1, module));
        }
    }
    found
}

/// The imports of `text` (a file of layer `own`) that reach a higher layer.
fn upward(own: usize, text: &str) -> Vec<(usize, String)> {
    crate_imports(text)
        .into_iter()
        .filter(|(_, module)| {
            LAYERS.iter().position(|l| l == module).is_some_and(|layer| layer > own)
        })
        .collect()
}

#[test]
fn no_module_imports_from_a_layer_above() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut problems = Vec::new();
    let mut layered = 0;
    for file in files {
        let relative = file.strip_prefix(&src).unwrap().to_path_buf();
        if relative == Path::new("lib.rs") || relative == Path::new("main.rs") {
            continue;
        }
        let own = layer_of(&relative).unwrap_or_else(|| {
            panic!("{}: not in any layer; add it to LAYERS", relative.display())
        });
        layered += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, module) in upward(own, &text) {
            problems.push(format!(
                "{}:{line} ({}) imports crate::{module}",
                relative.display(),
                LAYERS[own]
            ));
        }
    }
    assert!(layered > 20, "only {layered} source files found under {}", src.display());
    assert!(problems.is_empty(), "imports from a layer above:\n{}", problems.join("\n"));
}

#[test]
fn the_check_sees_an_upward_import() {
    let matches = LAYERS.iter().position(|l| *l == "matches").unwrap();
    let text = "use crate::agents::AgentHandle;\nuse crate::ops::agents::x; // crate::server\n";
    assert_eq!(upward(matches, text), vec![(2, "ops".to_string())]);
}

/// A source file's module path: `tournament/schedule.rs` is `tournament::schedule`, a `mod.rs`
/// its directory's module.
fn module_of(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The modules a file's code (its tests aside) imports: `crate::a::b` and `super::b` paths,
/// resolved to the longest module path that exists.
fn imported_modules(module: &str, text: &str, modules: &[String]) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut found = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for (prefix, base) in [("crate::", ""), ("super::", parent)] {
            for (at, _) in line.match_indices(prefix) {
                if prefix == "crate::" && line[..at].ends_with('$') {
                    continue; // `$crate::` in a macro names the user's crate, not an import
                }
                let path: Vec<&str> = line[at + prefix.len()..]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|p| !p.is_empty())
                    .collect();
                let candidates = (1..=path.len()).rev().map(|n| {
                    let tail = path[..n].join("::");
                    if base.is_empty() {
                        tail
                    } else {
                        format!("{base}::{tail}")
                    }
                });
                if let Some(hit) = candidates.into_iter().find(|c| modules.contains(c)) {
                    if hit != module {
                        found.push(hit);
                    }
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Every circle of modules that import one another, each as `a -> b -> a`. A folder is one room:
/// its `mod.rs` owns the files inside, which may name what it defines (`super::Table`), so a
/// parent and its own child are not a circle; two files that need each other share a folder.
fn circles(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|f| (module_of(f.strip_prefix(src).unwrap()), f))
        .filter(|(m, _)| !m.is_empty() && m != "main")
        .collect();
    let modules: Vec<String> = named.iter().map(|(m, _)| m.clone()).collect();
    let edges: Vec<Vec<usize>> = named
        .iter()
        .map(|(module, file)| {
            let text = std::fs::read_to_string(file).unwrap();
            imported_modules(module, &text, &modules)
                .iter()
                .filter_map(|m| modules.iter().position(|x| x == m))
                .collect()
        })
        .collect();
    // A circle through `start` is a path back to it; report each circle once, from its smallest.
    let mut found = Vec::new();
    for start in 0..modules.len() {
        let mut stack = vec![(start, vec![start])];
        let mut seen = vec![false; modules.len()];
        while let Some((at, path)) = stack.pop() {
            for &next in &edges[at] {
                if next == start {
                    let names: Vec<&str> = path.iter().map(|&i| modules[i].as_str()).collect();
                    found.push(format!("{} -> {}", names.join(" -> "), modules[start]));
                } else if next > start && !seen[next] {
                    seen[next] = true;
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
    }
    found
}

/// The source folder of every crate of the workspace, from the root manifest's `members`
/// (a trailing `/*` stands for each folder under it that holds a crate).
fn workspace_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest: toml::Table =
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap().parse().unwrap();
    let members = manifest["workspace"]["members"].as_array().expect("workspace members");
    let mut crates = Vec::new();
    for member in members {
        let member = member.as_str().expect("a member is a path");
        match member.strip_suffix("/*") {
            Some(parent) => {
                for entry in std::fs::read_dir(root.join(parent)).unwrap() {
                    crates.push(entry.unwrap().path());
                }
            }
            None => crates.push(root.join(member)),
        }
    }
    let mut sources: Vec<PathBuf> = crates
        .into_iter()
        .filter(|c| c.join("Cargo.toml").is_file())
        .map(|c| c.join("src"))
        .filter(|src| src.is_dir())
        .collect();
    sources.sort();
    sources
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let sources = workspace_sources();
    assert!(sources.len() > 15, "only {} crates found: {sources:?}", sources.len());
    let mut problems = Vec::new();
    for src in sources {
        let found = circles(&src);
        if !found.is_empty() {
            problems.push(format!("in {}:\n{}", src.display(), found.join("\n")));
        }
    }
    assert!(problems.is_empty(), "import circles {}", problems.join("\n"));
}

#[test]
fn the_check_sees_a_circle() {
    let modules: Vec<String> =
        ["a", "b", "c", "t::x", "t::y"].iter().map(|m| m.to_string()).collect();
    assert_eq!(imported_modules("a", "use crate::b::Thing;\nuse crate::a::Own;", &modules), ["b"]);
    assert_eq!(imported_modules("t::x", "use super::y::{self, Z};", &modules), ["t::y"]);
    assert!(
        imported_modules("c", "$crate::a::f()\n#[cfg(test)]\nuse crate::b;", &modules).is_empty()
    );
    let dir = tempfile_dir();
    for (name, text) in
        [("a.rs", "use crate::b::B;"), ("b.rs", "use crate::c::C;"), ("c.rs", "use crate::a::A;")]
    {
        std::fs::write(dir.join(name), text).unwrap();
    }
    assert_eq!(circles(&dir), ["a -> b -> c -> a"]);
    assert!(imported_modules("t::x", "use super::Table;", &modules).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory for the check's own sources.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yomi-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
