//! A small Gherkin reader, enough for TinkerPop's feature files.
//!
//! Why our own: the suite needs only a sliver of Gherkin (features,
//! scenarios, tags, steps, doc strings, tables, outlines), and a reader of
//! a few hundred lines is easier to trust than a dependency whose
//! behaviour on TinkerPop's files we would have to learn anyway. What it
//! reads:
//!
//! - `@tags` on the lines before `Feature:` (inherited by every scenario)
//!   and before `Scenario:` / `Scenario Outline:`;
//! - `Background:` steps, prepended to each scenario of the feature;
//! - steps (`Given`, `When`, `Then`, `And`, `But`, `*`), each with an
//!   optional doc string (`"""` or ```` ``` ````, its indentation taken
//!   off as Gherkin does: up to the column of the opening delimiter) or
//!   table (`| a | b |`, cells trimmed, `\|`, `\\` and `\n` unescaped);
//! - `Examples:` tables of an outline, expanded into one scenario per row
//!   with `<name>` replaced in step text, doc strings and cells;
//! - `#` comment lines outside doc strings.

/// One step of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// `Given`, `When`, `Then`, `And`, `But` or `*`.
    pub keyword: String,
    /// The text after the keyword.
    pub text: String,
    /// 1-based line in the file.
    pub line: usize,
    /// The doc string below the step, if any.
    pub doc: Option<String>,
    /// The table below the step (header row included), if any.
    pub table: Vec<Vec<String>>,
}

/// One scenario (an outline gives one per example row).
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Its name.
    pub name: String,
    /// 1-based line of its `Scenario:` keyword.
    pub line: usize,
    /// Its tags and its feature's, without `@`.
    pub tags: Vec<String>,
    /// Background steps, then its own.
    pub steps: Vec<Step>,
}

/// One feature file.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    /// The `Feature:` title.
    pub name: String,
    /// Its scenarios in file order.
    pub scenarios: Vec<Scenario>,
}

/// What the reader is filling in.
enum Block {
    None,
    Background,
    Scenario,
    Examples,
}

/// Parses one feature file's text.
///
/// # Errors
/// A message naming the line of the first construct it cannot read.
pub fn parse(text: &str) -> Result<Feature, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut feature_name = None;
    let mut feature_tags: Vec<String> = Vec::new();
    let mut pending_tags: Vec<String> = Vec::new();
    let mut background: Vec<Step> = Vec::new();
    let mut scenarios: Vec<Scenario> = Vec::new();
    // The scenario (or outline) being read, and whether it is an outline.
    let mut current: Option<(Scenario, bool)> = None;
    let mut examples: Vec<Vec<String>> = Vec::new();
    let mut block = Block::None;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let line_no = i + 1;
        let t = raw.trim();
        i += 1;
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('@') {
            pending_tags.extend(
                t.split_whitespace()
                    .take_while(|w| !w.starts_with('#'))
                    .map(|w| w.trim_start_matches('@').to_owned()),
            );
            continue;
        }
        if let Some(rest) = t.strip_prefix("Feature:") {
            feature_name = Some(rest.trim().to_owned());
            feature_tags = std::mem::take(&mut pending_tags);
            continue;
        }
        if t.starts_with("Background:") {
            block = Block::Background;
            continue;
        }
        let outline = ["Scenario Outline:", "Scenario Template:"]
            .iter()
            .find_map(|k| t.strip_prefix(k));
        let plain = ["Scenario:", "Example:"]
            .iter()
            .find_map(|k| t.strip_prefix(k));
        if let Some((rest, is_outline)) = outline.map(|r| (r, true)).or(plain.map(|r| (r, false))) {
            finish(&mut current, &mut examples, &mut scenarios)?;
            let mut tags = feature_tags.clone();
            tags.append(&mut pending_tags);
            let scenario = Scenario {
                name: rest.trim().to_owned(),
                line: line_no,
                tags,
                steps: background.clone(),
            };
            current = Some((scenario, is_outline));
            block = Block::Scenario;
            continue;
        }
        if t.starts_with("Examples:") || t.starts_with("Scenarios:") {
            pending_tags.clear();
            block = Block::Examples;
            continue;
        }
        if t.starts_with('|') {
            let row = cells(t).map_err(|e| format!("line {line_no}: {e}"))?;
            match block {
                Block::Examples => examples.push(row),
                Block::Background => last_step(&mut background, line_no)?.table.push(row),
                Block::Scenario => match current.as_mut() {
                    Some((s, _)) => last_step(&mut s.steps, line_no)?.table.push(row),
                    None => return Err(format!("line {line_no}: a table outside a scenario")),
                },
                Block::None => return Err(format!("line {line_no}: a table outside a scenario")),
            }
            continue;
        }
        if t.starts_with("\"\"\"") || t.starts_with("```") {
            let (doc, next) = doc_string(&lines, i - 1)?;
            i = next;
            let step = match block {
                Block::Background => last_step(&mut background, line_no)?,
                Block::Scenario => match current.as_mut() {
                    Some((s, _)) => last_step(&mut s.steps, line_no)?,
                    None => return Err(format!("line {line_no}: a doc string outside a scenario")),
                },
                _ => return Err(format!("line {line_no}: a doc string outside a step")),
            };
            step.doc = Some(doc);
            continue;
        }
        if let Some((keyword, text)) = step_keyword(t) {
            let step = Step {
                keyword: keyword.to_owned(),
                text: text.to_owned(),
                line: line_no,
                doc: None,
                table: Vec::new(),
            };
            match block {
                Block::Background => background.push(step),
                Block::Scenario => match current.as_mut() {
                    Some((s, _)) => s.steps.push(step),
                    None => return Err(format!("line {line_no}: a step outside a scenario")),
                },
                _ => return Err(format!("line {line_no}: a step outside a scenario")),
            }
            continue;
        }
        // Free text under `Feature:` (its description) is allowed before
        // the first scenario; anywhere else it is a line we do not know.
        if matches!(block, Block::None) && feature_name.is_some() {
            continue;
        }
        return Err(format!("line {line_no}: cannot read {t:?}"));
    }
    finish(&mut current, &mut examples, &mut scenarios)?;
    Ok(Feature {
        name: feature_name.ok_or("no `Feature:` line")?,
        scenarios,
    })
}

/// The step a table or doc string belongs to.
fn last_step(steps: &mut [Step], line: usize) -> Result<&mut Step, String> {
    steps
        .last_mut()
        .ok_or_else(|| format!("line {line}: a table or doc string before any step"))
}

/// `Given the modern graph` into (`Given`, `the modern graph`).
fn step_keyword(t: &str) -> Option<(&str, &str)> {
    for k in ["Given", "When", "Then", "And", "But", "*"] {
        if let Some(rest) = t.strip_prefix(k) {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return Some((k, rest.trim()));
            }
        }
    }
    None
}

/// Files the scenario being read: itself, or one per example row of an
/// outline.
fn finish(
    current: &mut Option<(Scenario, bool)>,
    examples: &mut Vec<Vec<String>>,
    out: &mut Vec<Scenario>,
) -> Result<(), String> {
    let Some((s, outline)) = current.take() else {
        return Ok(());
    };
    let rows = std::mem::take(examples);
    if !outline {
        out.push(s);
        return Ok(());
    }
    let Some((header, rows)) = rows.split_first() else {
        return Err(format!("line {}: an outline without examples", s.line));
    };
    for (n, row) in rows.iter().enumerate() {
        let fill = |text: &str| {
            header.iter().zip(row).fold(text.to_owned(), |acc, (k, v)| {
                acc.replace(&format!("<{k}>"), v)
            })
        };
        let steps = s
            .steps
            .iter()
            .map(|st| Step {
                keyword: st.keyword.clone(),
                text: fill(&st.text),
                line: st.line,
                doc: st.doc.as_deref().map(fill),
                table: st
                    .table
                    .iter()
                    .map(|r| r.iter().map(|c| fill(c)).collect())
                    .collect(),
            })
            .collect();
        out.push(Scenario {
            name: format!("{} (example {})", fill(&s.name), n + 1),
            line: s.line,
            tags: s.tags.clone(),
            steps,
        });
    }
    Ok(())
}

/// The cells of a table row, trimmed and unescaped.
fn cells(t: &str) -> Result<Vec<String>, String> {
    let body = t
        .strip_prefix('|')
        .ok_or("a table row must start with `|`")?;
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = body.chars();
    let mut closed = false;
    while let Some(c) = chars.next() {
        closed = false;
        match c {
            '\\' => match chars.next() {
                Some('|') => cell.push('|'),
                Some('\\') => cell.push('\\'),
                Some('n') => cell.push('\n'),
                Some(other) => {
                    cell.push('\\');
                    cell.push(other);
                }
                None => cell.push('\\'),
            },
            '|' => {
                out.push(cell.trim().to_owned());
                cell.clear();
                closed = true;
            }
            c => cell.push(c),
        }
    }
    if !closed && !cell.trim().is_empty() {
        return Err("a table row must end with `|`".into());
    }
    Ok(out)
}

/// The doc string opening at `lines[start]`: its text and the index of
/// the line after its closing delimiter.
fn doc_string(lines: &[&str], start: usize) -> Result<(String, usize), String> {
    let open = lines[start];
    let indent = open.len() - open.trim_start().len();
    let delim = if open.trim_start().starts_with("```") {
        "```"
    } else {
        "\"\"\""
    };
    let mut body: Vec<String> = Vec::new();
    for (k, line) in lines.iter().enumerate().skip(start + 1) {
        if line.trim() == delim {
            let text = body.join("\n");
            let text = if delim == "\"\"\"" {
                text.replace("\\\"\\\"\\\"", "\"\"\"")
            } else {
                text
            };
            return Ok((text, k + 1));
        }
        // Take off at most `indent` leading whitespace characters.
        let mut cut = 0;
        for (n, c) in line.char_indices() {
            if n >= indent || !c.is_whitespace() {
                break;
            }
            cut = n + c.len_utf8();
        }
        body.push(line[cut..].to_owned());
    }
    Err(format!(
        "line {}: a doc string that is never closed",
        start + 1
    ))
}

/// Unescapes the `\"` of a quoted step argument (`defined as "m[{\"a\":1}]"`).
pub fn unquote(s: &str) -> String {
    s.replace("\\\"", "\"")
}

/// Checks the reader on a small feature (the start-up self-check).
pub fn self_check() -> Result<(), String> {
    let text = "@FeatureTag\nFeature: F\n  description\n\n  @A @B\n  Scenario: s1\n    Given the modern graph\n    And the traversal of\n      \"\"\"\n      g.V().\n        out()\n      \"\"\"\n    # a comment\n    Then the result should be unordered\n      | result |\n      | a \\| b |\n      | m[{\\\\\"x\\\\\":1}] |\n\n  Scenario Outline: o\n    Given <g>\n    Examples:\n      | g |\n      | x |\n      | y |\n";
    let f = parse(text)?;
    let want_doc = "g.V().\n  out()";
    let s = f.scenarios.first().ok_or("gherkin: no scenario read")?;
    let ok = f.name == "F"
        && f.scenarios.len() == 3
        && s.tags == ["FeatureTag", "A", "B"]
        && s.steps.len() == 3
        && s.steps[1].doc.as_deref() == Some(want_doc)
        && s.steps[2].table
            == [
                vec!["result".to_owned()],
                vec!["a | b".to_owned()],
                vec!["m[{\\\"x\\\":1}]".to_owned()],
            ]
        && f.scenarios[2].steps[0].text == "y"
        && f.scenarios[1].tags == ["FeatureTag"];
    if ok {
        Ok(())
    } else {
        Err(format!("gherkin reader self-check failed: {f:#?}"))
    }
}
