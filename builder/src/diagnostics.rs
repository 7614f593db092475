//! What the nested build's `cargo build --message-format=json` says: the kernel crate's
//! warnings, forwarded as `cargo:warning=` lines after a build that succeeds, and the text a
//! failed build shows (rustc's diagnostics as cargo would have printed them).

use std::path::Path;

/// How many of the kernel crate's warnings [`warning_lines`] forwards; the rest are counted.
pub(crate) const MAX_FORWARDED: usize = 20;

/// How many characters of a warning's message a forwarded line keeps.
const MAX_MESSAGE_CHARS: usize = 240;

/// One `compiler-message` of cargo's JSON output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Diagnostic {
    /// The `Cargo.toml` of the package whose build emitted it.
    pub manifest_path: String,
    /// `error`, `warning`, `failure-note`, ...
    pub level: String,
    /// The message's first part, without the source snippet (may hold newlines).
    pub message: String,
    /// The primary span: file (as rustc names it), line, column. `None` for a message about
    /// the command line, such as rustc's note that `+ptx84` is an unstable target feature.
    pub primary: Option<(String, u64, u64)>,
    /// The message as rustc renders it for a terminal (what `cargo build` prints).
    pub rendered: Option<String>,
}

/// The diagnostic a line of cargo's JSON output holds, if it is a `compiler-message`.
pub(crate) fn parse_line(line: &str) -> Option<Diagnostic> {
    Json::parse(line.trim()).as_ref().and_then(diagnostic)
}

/// The diagnostic of a `compiler-message` of cargo's JSON output.
fn diagnostic(v: &Json) -> Option<Diagnostic> {
    if v.get("reason")?.as_str()? != "compiler-message" {
        return None;
    }
    let message = v.get("message")?;
    let spans = message.get("spans").and_then(Json::as_array).unwrap_or(&[]);
    let primary = spans
        .iter()
        .find(|s| s.get("is_primary") == Some(&Json::Bool(true)))
        .and_then(|s| {
            Some((
                s.get("file_name")?.as_str()?.to_string(),
                s.get("line_start")?.as_u64()?,
                s.get("column_start")?.as_u64()?,
            ))
        });
    Some(Diagnostic {
        manifest_path: v.get("manifest_path")?.as_str()?.to_string(),
        level: message.get("level")?.as_str()?.to_string(),
        message: message.get("message")?.as_str()?.to_string(),
        primary,
        rendered: message
            .get("rendered")
            .and_then(Json::as_str)
            .map(str::to_string),
    })
}

/// Every diagnostic of cargo's JSON stdout, in order.
pub(crate) fn parse_output(stdout: &str) -> Vec<Diagnostic> {
    stdout.lines().filter_map(parse_line).collect()
}

/// The `cargo:warning=` lines for the warnings of the package whose manifest is `manifest`,
/// labelled `label`: one line per warning, `<label>: <message> --> <file>:<line>:<col>`, its
/// whitespace (newlines included) folded into single spaces so that each is one line of
/// build script output; at most [`MAX_FORWARDED`], then one line that counts the rest.
/// Warnings without a source location (about the command line: the builder's own flags) and
/// those of other packages (dependencies, `core`) are left out; a repeated one is shown once.
pub(crate) fn warning_lines(
    diagnostics: &[Diagnostic],
    manifest: &Path,
    label: &str,
) -> Vec<String> {
    let canonical = manifest.canonicalize().ok();
    let ours = |path: &str| {
        let path = Path::new(path);
        path == manifest
            || canonical
                .as_ref()
                .is_some_and(|m| path.canonicalize().is_ok_and(|p| p == *m))
    };
    let mut shown: Vec<String> = Vec::new();
    for d in diagnostics {
        let Some((file, line, column)) = &d.primary else {
            continue;
        };
        if d.level != "warning" || !ours(&d.manifest_path) {
            continue;
        }
        let text = format!(
            "cargo:warning={}: {} --> {}:{line}:{column}",
            one_line(label, MAX_MESSAGE_CHARS),
            one_line(&d.message, MAX_MESSAGE_CHARS),
            one_line(file, MAX_MESSAGE_CHARS),
        );
        if !shown.contains(&text) {
            shown.push(text);
        }
    }
    if shown.len() > MAX_FORWARDED {
        let rest = shown.len() - MAX_FORWARDED;
        shown.truncate(MAX_FORWARDED);
        shown.push(format!(
            "cargo:warning={}: {rest} more warning{} not shown",
            one_line(label, MAX_MESSAGE_CHARS),
            if rest == 1 { "" } else { "s" }
        ));
    }
    shown
}

/// `text` on one line: every run of whitespace or control characters as one space, trimmed,
/// cut after `max` characters (with `...`).
fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    match out.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &out[..cut]),
        None => out,
    }
}

/// What a failed build printed, as `cargo build` without `--message-format=json` would have:
/// cargo's own lines (stderr) with rustc's rendered diagnostics (from the JSON on stdout) put
/// before cargo's closing `error: could not compile ...` (or at the end). Lines of stdout that
/// are not cargo's JSON are kept as they are.
pub(crate) fn failure_output(stdout: &str, stderr: &str) -> String {
    let mut diagnostics = String::new();
    for line in stdout.lines() {
        match Json::parse(line.trim()) {
            Some(v @ Json::Object(_)) => {
                if let Some(rendered) = diagnostic(&v).and_then(|d| d.rendered) {
                    diagnostics.push_str(&rendered);
                    if !rendered.ends_with('\n') {
                        diagnostics.push('\n');
                    }
                }
            }
            _ => {
                diagnostics.push_str(line);
                diagnostics.push('\n');
            }
        }
    }
    let lines: Vec<&str> = stderr.lines().collect();
    let end = lines
        .iter()
        .position(|l| {
            l.starts_with("error: could not compile") || l.starts_with("warning: build failed")
        })
        .unwrap_or(lines.len());
    let mut out = String::new();
    for line in &lines[..end] {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&diagnostics);
    for line in &lines[end..] {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A JSON value: just enough of JSON to read cargo's messages, with std only.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value `text` holds (all of it), or `None` if it is not JSON.
    fn parse(text: &str) -> Option<Json> {
        let mut p = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let v = p.value(0)?;
        p.skip_blanks();
        (p.at == p.bytes.len()).then_some(v)
    }

    /// An object's member (the first of that name).
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match *self {
            Json::Number(n) if n >= 0.0 && n.fract() == 0.0 && n <= u64::MAX as f64 => {
                Some(n as u64)
            }
            _ => None,
        }
    }
}

/// Nesting deeper than this is refused (cargo's messages nest a few levels).
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_blanks(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_blanks();
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &str, v: Json) -> Option<Json> {
        self.bytes[self.at..].starts_with(word.as_bytes()).then(|| {
            self.at += word.len();
            v
        })
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_blanks();
        match *self.bytes.get(self.at)? {
            b'n' => self.literal("null", Json::Null),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'"' => self.string().map(Json::String),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_some() {
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',').is_none() {
                        self.eat(b']')?;
                        return Some(Json::Array(items));
                    }
                }
            }
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat(b'}').is_some() {
                    return Some(Json::Object(members));
                }
                loop {
                    self.skip_blanks();
                    let key = self.string()?;
                    self.eat(b':')?;
                    members.push((key, self.value(depth + 1)?));
                    if self.eat(b',').is_none() {
                        self.eat(b'}')?;
                        return Some(Json::Object(members));
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
                text.parse().ok().map(Json::Number)
            }
            _ => None,
        }
    }

    /// A string literal starting at the current byte (`"`).
    fn string(&mut self) -> Option<String> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.bytes.get(self.at)?;
                    self.at += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                0..=0x1f => return None,
                _ => out.push(b),
            }
        }
    }

    /// The character of a `\u` escape whose `\u` was read, a surrogate pair included.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if (0xd800..0xdc00).contains(&first) {
            if !self.bytes[self.at..].starts_with(b"\\u") {
                return None;
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xdc00..0xe000).contains(&second) {
                return None;
            }
            return char::from_u32(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00));
        }
        char::from_u32(first)
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        let v = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
        self.at += 4;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three messages of a real nested build (rustc 1.99.1, shortened): rustc's note about
    /// `+ptx84` (no span), a deprecation whose message has a newline, an unused variable.
    const MANIFEST: &str = "/k/Cargo.toml";
    const STDOUT: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///rust/library/core#0.0.0","manifest_path":"/rust/library/core/Cargo.toml","target":{"name":"core"},"filenames":[]}
{"reason":"compiler-message","package_id":"path+file:///k#kernels@0.1.0","manifest_path":"/k/Cargo.toml","target":{"kind":["cdylib"],"name":"kernels"},"message":{"rendered":"warning: unstable feature specified for `-Ctarget-feature`: `ptx84`\n  |\n  = note: this feature is not stably supported; its behavior can change in the future\n\n","$message_type":"diagnostic","children":[{"children":[],"code":null,"level":"note","message":"this feature is not stably supported; its behavior can change in the future","rendered":null,"spans":[]}],"level":"warning","message":"unstable feature specified for `-Ctarget-feature`: `ptx84`","spans":[],"code":null}}
{"reason":"compiler-message","package_id":"path+file:///k#kernels@0.1.0","manifest_path":"/k/Cargo.toml","target":{"kind":["cdylib"],"name":"kernels"},"message":{"rendered":"warning: use of deprecated function `old`: old\n         multiline\n  --> src/lib.rs:12:14\n   |\n12 | pub fn f() { old() }\n   |              ^^^\n\n","$message_type":"diagnostic","children":[],"level":"warning","message":"use of deprecated function `old`: old\nmultiline","spans":[{"byte_end":282,"byte_start":279,"column_end":17,"column_start":14,"expansion":null,"file_name":"src/lib.rs","is_primary":true,"label":null,"line_end":12,"line_start":12,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}],"code":{"code":"deprecated","explanation":null}}}
{"reason":"compiler-message","package_id":"path+file:///k#kernels@0.1.0","manifest_path":"/k/Cargo.toml","target":{"kind":["cdylib"],"name":"kernels"},"message":{"rendered":"warning: unused variable: `x`\n --> src/lib.rs:7:9\n  |\n7 |     let x = 1;\n  |         ^ help: if this is intentional, prefix it with an underscore: `_x`\n\n","$message_type":"diagnostic","children":[{"children":[],"code":null,"level":"help","message":"if this is intentional, prefix it with an underscore","rendered":null,"spans":[{"column_start":9,"file_name":"src/lib.rs","is_primary":true,"line_start":7}]}],"level":"warning","message":"unused variable: `x`","spans":[{"byte_end":184,"byte_start":183,"column_end":10,"column_start":9,"expansion":null,"file_name":"src/lib.rs","is_primary":true,"label":null,"line_end":7,"line_start":7,"suggested_replacement":null,"suggestion_applicability":null,"text":[{"highlight_end":10,"highlight_start":9,"text":"    let x = 1;"}]}],"code":{"code":"unused_variables","explanation":null}}}
{"reason":"build-finished","success":true}
"#;

    #[test]
    fn json_values_parse() {
        let v = Json::parse(r#" {"a": [1, -2.5e1, true, false, null], "b": "x\"\\\/\n\u00e9\ud83d\ude00", "c": {}} "#)
            .unwrap();
        assert_eq!(
            v.get("a").and_then(Json::as_array).unwrap(),
            [
                Json::Number(1.0),
                Json::Number(-25.0),
                Json::Bool(true),
                Json::Bool(false),
                Json::Null
            ]
        );
        assert_eq!(v.get("b").and_then(Json::as_str), Some("x\"\\/\né😀"));
        assert_eq!(v.get("c"), Some(&Json::Object(Vec::new())));
        assert_eq!(Json::Number(7.0).as_u64(), Some(7));
        assert_eq!(Json::Number(-1.0).as_u64(), None);
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "\"\\x\"",
            "\"\u{1}\"",
            "\"\\ud83d\"",
            "nul",
            "1 2",
            "   Compiling kernels v0.1.0",
        ] {
            assert_eq!(Json::parse(bad), None, "{bad:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 2) + &"]".repeat(MAX_DEPTH + 2);
        assert_eq!(Json::parse(&deep), None);
    }

    #[test]
    fn compiler_messages_are_read() {
        let d = parse_output(STDOUT);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].primary, None);
        assert_eq!(
            d[1].message,
            "use of deprecated function `old`: old\nmultiline"
        );
        assert_eq!(d[2].primary, Some(("src/lib.rs".into(), 7, 9)));
        assert_eq!(
            (d[2].level.as_str(), d[2].manifest_path.as_str()),
            ("warning", MANIFEST)
        );
        assert!(d[2]
            .rendered
            .as_deref()
            .unwrap()
            .starts_with("warning: unused variable: `x`\n"));
    }

    /// One line per warning with a location, each a `cargo:warning=` line: the `+ptx84`
    /// note (about the builder's flags) and other packages' warnings stay out.
    #[test]
    fn warnings_are_one_cargo_line_each() {
        let mut d = parse_output(STDOUT);
        let mut other = d[2].clone();
        other.manifest_path = "/elsewhere/Cargo.toml".into();
        d.push(other);
        let mut error = d[2].clone();
        error.level = "error".into();
        d.push(error);
        d.push(d[2].clone()); // a repeat
        let lines = warning_lines(&d, Path::new(MANIFEST), "kernels");
        assert_eq!(
            lines,
            [
                "cargo:warning=kernels: use of deprecated function `old`: old multiline --> src/lib.rs:12:14",
                "cargo:warning=kernels: unused variable: `x` --> src/lib.rs:7:9",
            ]
        );
        assert_eq!(
            warning_lines(&d, Path::new("/k2/Cargo.toml"), "k2"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn past_the_cap_the_rest_is_counted() {
        let one = parse_output(STDOUT).remove(2);
        let many: Vec<Diagnostic> = (0..MAX_FORWARDED as u64 + 3)
            .map(|i| Diagnostic {
                primary: Some(("src/lib.rs".into(), i + 1, 5)),
                ..one.clone()
            })
            .collect();
        assert_eq!(
            MAX_FORWARDED, 20,
            "PtxBuilder::build's docs and the README say 20"
        );
        let lines = warning_lines(&many, Path::new(MANIFEST), "kernels");
        assert_eq!(lines.len(), MAX_FORWARDED + 1);
        assert_eq!(
            lines[0],
            "cargo:warning=kernels: unused variable: `x` --> src/lib.rs:1:5"
        );
        assert_eq!(
            lines[MAX_FORWARDED],
            "cargo:warning=kernels: 3 more warnings not shown"
        );
        let exactly = warning_lines(&many[..MAX_FORWARDED], Path::new(MANIFEST), "kernels");
        assert_eq!(exactly.len(), MAX_FORWARDED);
        let plus_one = warning_lines(&many[..MAX_FORWARDED + 1], Path::new(MANIFEST), "kernels");
        assert_eq!(
            plus_one[MAX_FORWARDED],
            "cargo:warning=kernels: 1 more warning not shown"
        );
    }

    #[test]
    fn one_line_folds_whitespace_and_cuts() {
        assert_eq!(one_line("  a\n\t b\r\n\u{1b}[31mc  ", 100), "a b [31mc");
        assert_eq!(one_line("abcdef", 3), "abc...");
        assert_eq!(one_line("é😀é", 2), "é😀...");
        assert_eq!(one_line("abc", 3), "abc");
    }

    /// A failed build's text is cargo's stderr with rustc's rendered diagnostics before the
    /// closing `could not compile` line, as a plain `cargo build` prints it.
    #[test]
    fn failure_output_reads_like_cargo_build() {
        let stdout = format!("{}{}\n", STDOUT.lines().nth(3).unwrap(), "\nnot json");
        let stderr = "   Compiling kernels v0.1.0 (/k)\nerror: could not compile `kernels` (lib) due to 1 previous error\n";
        assert_eq!(
            failure_output(&stdout, stderr),
            "   Compiling kernels v0.1.0 (/k)\n\
             warning: unused variable: `x`\n --> src/lib.rs:7:9\n  |\n7 |     let x = 1;\n  \
             |         ^ help: if this is intentional, prefix it with an underscore: `_x`\n\n\
             not json\n\
             error: could not compile `kernels` (lib) due to 1 previous error\n"
        );
        // No closing line (cargo failed before compiling): the diagnostics come last.
        assert_eq!(
            failure_output("", "error: no such file\n"),
            "error: no such file\n"
        );
        assert_eq!(failure_output("x\n", "a\nb\n"), "a\nb\nx\n");
    }
}
