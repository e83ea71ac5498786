//! Every relative link in the repository's Markdown points at a file inside the repository.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The Markdown files of the repository, outside build output and fuzzing work folders.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skipped = name.starts_with('.')
                || name.starts_with("target")
                || [
                    "corpus",
                    "artifacts",
                    "store",
                    "nightly",
                    "reports",
                    "coverage",
                    "mutants",
                ]
                .contains(&name.as_str());
            if !skipped {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The targets of inline links `[text](target)` in `text`.
fn link_targets(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn relative_links_stay_inside_the_repository_and_resolve() {
    let repo = repo();
    let mut files = Vec::new();
    markdown_files(&repo, &mut files);
    assert!(files.len() >= 5, "found only {files:?}");
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in link_targets(&text) {
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let resolved = file.parent().unwrap().join(target);
            match resolved.canonicalize() {
                Ok(path) if path.starts_with(&repo) => {}
                _ => broken.push(format!("{}: {target}", file.display())),
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that do not resolve inside the repository: {broken:#?}"
    );
}
