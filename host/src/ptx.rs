//! What the host reads from PTX text itself: the file (read here, so that any path becomes the
//! text or an error naming the path), and each kernel's parameter sizes (from its `.entry`
//! declaration, so that checking a launch's arguments makes no driver call).
//!
//! The sizes used to come from `cuFuncGetParamInfo`, asked for one index past the last
//! parameter to find the count: a failing driver call on every first launch, which
//! compute-sanitizer reports as an API error. The declaration says the same without asking:
//!
//! ```text
//! .visible .entry host_api_affine(
//!     .param .u64 .ptr .align 1 host_api_affine_param_0,   // 8 bytes
//!     .param .u32 host_api_affine_param_1,                 // 4
//!     .param .align 8 .b8 host_api_affine_param_2[24]      // 24: a struct by value
//! )
//! ```

use crate::{Error, Result};
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// The text of the PTX file at `path`: [`Error::PtxNotFound`] where nothing is there,
/// [`Error::PtxUnreadable`] where it cannot be read as UTF-8 text (a directory, no permission,
/// other bytes). Any path works, UTF-8 or not: the file is read here, not by cudarc, whose
/// `Ptx::from_file` panics on a path that is not UTF-8.
pub(crate) fn read_ptx(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => Error::PtxNotFound(path.to_path_buf()),
        _ => Error::PtxUnreadable {
            path: path.to_path_buf(),
            source,
        },
    })
}

/// A loaded module's PTX text and, once asked, what its `.entry` declarations say.
pub(crate) struct PtxText {
    text: Box<str>,
    entries: OnceLock<HashMap<String, Option<Vec<usize>>>>,
}

impl PtxText {
    pub(crate) fn new(text: &str) -> PtxText {
        PtxText {
            text: text.into(),
            entries: OnceLock::new(),
        }
    }

    /// The sizes of kernel `name`'s parameters; `None` where the text does not say for certain.
    pub(crate) fn param_sizes(&self, name: &str) -> Option<&[usize]> {
        self.entries
            .get_or_init(|| entries(&self.text))
            .get(name)?
            .as_deref()
    }
}

/// Every kernel (`.entry`) of `ptx` and the size in bytes of each of its parameters. `None` for
/// a kernel whose declaration this parser does not fully understand, or that is declared more
/// than once: no sizes is no check, and a launch is never refused on a misreading.
pub(crate) fn entries(ptx: &str) -> HashMap<String, Option<Vec<usize>>> {
    let code = strip_comments(ptx);
    let mut found: HashMap<String, Option<Vec<usize>>> = HashMap::new();
    let mut rest = code.as_str();
    while let Some(at) = find_directive(rest, ".entry") {
        rest = rest[at + ".entry".len()..].trim_start();
        let name_len = rest.find(|c| !is_ident_char(c)).unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_len);
        rest = after;
        if name.is_empty() {
            continue;
        }
        let sizes = params(after);
        found
            .entry(name.to_string())
            .and_modify(|twice| *twice = None)
            .or_insert(sizes);
    }
    found
}

/// [`entries`] for one kernel.
#[cfg(test)]
pub(crate) fn param_sizes(ptx: &str, name: &str) -> Option<Vec<usize>> {
    entries(ptx).remove(name).flatten()
}

/// PTX identifiers: letters, digits, `_`, `$` (and `%` first).
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%')
}

/// Where `directive` starts in `text` as a whole word (not inside `ld.param::entry`).
fn find_directive(text: &str, directive: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(directive).map(|i| i + from) {
        let before = text[..at].chars().next_back();
        let after = text[at + directive.len()..].chars().next();
        if before.is_none_or(char::is_whitespace) && after.is_none_or(|c| !is_ident_char(c)) {
            return Some(at);
        }
        from = at + directive.len();
    }
    None
}

/// `text` with `//` and `/* */` comments replaced by a space; quoted strings (a `.file`
/// directive's path) are kept, so a `//` inside one is not taken for a comment.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('"', _) => {
                out.push(c);
                for s in chars.by_ref() {
                    out.push(s);
                    if s == '"' || s == '\n' {
                        break;
                    }
                }
            }
            ('/', Some('/')) => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for s in chars.by_ref() {
                    if last == '*' && s == '/' {
                        break;
                    }
                    last = s;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The sizes of the parameter list that starts `after` the kernel's name: `( decl, ... )`, or
/// no list at all (no parameters).
fn params(after: &str) -> Option<Vec<usize>> {
    let Some(list) = after.trim_start().strip_prefix('(') else {
        return Some(Vec::new());
    };
    let list = &list[..list.find(')')?];
    if list.trim().is_empty() {
        return Some(Vec::new());
    }
    list.split(',').map(param_size).collect()
}

/// The size of one `.param` declaration: `.param [.align N] [.ptr [.space] [.align N]] .type
/// name[[N]...]`, attributes in any order; `None` for anything else.
fn param_size(decl: &str) -> Option<usize> {
    let (head, dims) = match decl.find('[') {
        Some(at) => decl.split_at(at),
        None => (decl, ""),
    };
    let mut count: usize = 1;
    let mut dims = dims.trim();
    while !dims.is_empty() {
        let close = dims.find(']')?;
        let n = number(dims[1..close].trim())?;
        count = count.checked_mul(n)?;
        dims = dims[close + 1..].trim_start();
        if !dims.is_empty() && !dims.starts_with('[') {
            return None;
        }
    }
    let mut tokens = head.split_whitespace();
    if tokens.next()? != ".param" {
        return None;
    }
    let mut elem = None;
    let mut name = None;
    while let Some(token) = tokens.next() {
        match token {
            ".align" => {
                number(tokens.next()?)?;
            }
            ".ptr" | ".global" | ".const" | ".local" | ".shared" => {}
            t if t.starts_with('.') => {
                if elem.replace(type_size(t)?).is_some() {
                    return None; // two types
                }
            }
            t if name.is_none() && t.chars().all(is_ident_char) => name = Some(t),
            _ => return None,
        }
    }
    name?;
    elem?.checked_mul(count)
}

fn type_size(t: &str) -> Option<usize> {
    Some(match t {
        ".b8" | ".u8" | ".s8" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" => 8,
        ".b128" => 16,
        _ => return None,
    })
}

/// A decimal or `0x` hexadecimal count.
fn number(text: &str) -> Option<usize> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => usize::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rustc's output for `host_api_affine(out: *mut u64, n: u32, a: u64, b: i32, flag: bool,
    /// tag: u8, scale: f32)` (tests/kernels), with the comments LLVM writes around it.
    const RUSTC: &str = "//
// Generated by LLVM NVPTX Back-End
//

.version 8.4
.target sm_90
.address_size 64

\t// .globl\thost_api_affine       // -- Begin function host_api_affine
.visible .global .align 4 .b8 HOST_API_COUNTER[4];
.visible .entry host_api_affine(
\t.param .u64 .ptr .align 1 host_api_affine_param_0,
\t.param .u32 host_api_affine_param_1,
\t.param .u64 host_api_affine_param_2,
\t.param .u32 host_api_affine_param_3,
\t.param .u8 host_api_affine_param_4,
\t.param .u8 host_api_affine_param_5,
\t.param .f32 host_api_affine_param_6
)                                       // @host_api_affine
{
\tld.param::entry.b64 \t%rd1, [host_api_affine_param_0];
\tret;
}
\t// .globl\thost_api_add
.visible .entry host_api_add(
\t.param .u64 .ptr .align 1 host_api_add_param_0
)                                       // @host_api_add
{
\tret;
}
";

    #[test]
    fn rustc_declarations() {
        let mut checks = 0;
        let mut check = |ptx: &str, kernel: &str, want: Option<Vec<usize>>| {
            assert_eq!(param_sizes(ptx, kernel), want, "{kernel} in:\n{ptx}");
            checks += 1;
        };
        check(RUSTC, "host_api_affine", Some(vec![8, 4, 8, 4, 1, 1, 4]));
        check(RUSTC, "host_api_add", Some(vec![8]));
        // Not kernels: a global, a name that only starts like one, a name in a comment.
        check(RUSTC, "HOST_API_COUNTER", None);
        check(RUSTC, "host_api", None);
        check(RUSTC, "Begin", None);
        check(RUSTC, "", None);

        let hand = ".entry none() { ret; }
.visible .entry bare
{ ret; }
.entry structs ( .param .align 8 .b8 s[24], .param .b32 words [4], .param .align 16 .b8 grid[0x2][3] )
.entry pointers(.param .u64 .ptr .global .align 16 p, .param .u64 .ptr .shared q, .param .b64 r)
.entry scalars(.param .s8 a, .param .b16 b, .param .f16 c, .param .bf16 d, .param .s32 e, .param .f64 f, .param .b128 g)
.entry $dollar_name(.param .u32 x)
/* .entry commented(.param .u32 x) */
.file 1 \"/src//kernels/*.rs\"
.entry after_string(.param .u8 x)
.entry twice(.param .u32 x)
.entry twice(.param .u64 x)
.entry texture(.param .texref t)
.entry vector(.param .v2 .u32 v)
.entry two_names(.param .u32 a b)
.entry two_types(.param .u32 .u64 a)
.entry no_name(.param .u32)
.entry not_param(.reg .u32 a)
.entry unsized(.param .b8 a[])
.entry overflow(.param .b64 a[0xffffffffffffffff])
.entry unclosed(.param .u32 a
";
        check(hand, "none", Some(vec![]));
        check(hand, "bare", Some(vec![]));
        check(hand, "structs", Some(vec![24, 16, 6]));
        check(hand, "pointers", Some(vec![8, 8, 8]));
        check(hand, "scalars", Some(vec![1, 2, 2, 2, 4, 8, 16]));
        check(hand, "$dollar_name", Some(vec![4]));
        check(hand, "commented", None);
        check(hand, "after_string", Some(vec![1]));
        for unsure in [
            "twice",
            "texture",
            "vector",
            "two_names",
            "two_types",
            "no_name",
            "not_param",
            "unsized",
            "overflow",
            "unclosed",
        ] {
            check(hand, unsure, None);
        }
        assert_eq!(checks, 24);
    }

    use crate::test_rng::Rng;

    /// Random declarations of known sizes are read exactly; random cuts and byte noise never
    /// panic, and never give sizes the text does not declare.
    #[test]
    fn random_declarations_are_read_exactly() {
        const TYPES: [(&str, usize); 9] = [
            (".u8", 1),
            (".s16", 2),
            (".b16", 2),
            (".f32", 4),
            (".u32", 4),
            (".b64", 8),
            (".u64", 8),
            (".f64", 8),
            (".b128", 16),
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut exact, mut noisy) = (0, 0);
        for round in 0..2000 {
            let n = rng.below(8);
            let mut decls = Vec::new();
            let mut want = Vec::new();
            for i in 0..n {
                let (t, size) = TYPES[rng.below(TYPES.len())];
                let align = [1, 2, 4, 8, 16][rng.below(5)];
                let (decl, bytes) = match rng.below(4) {
                    0 => (format!(".param {t} k{round}_p{i}"), size),
                    1 => (
                        format!(".param {t} .ptr .global .align {align} k{round}_p{i}"),
                        size,
                    ),
                    2 => {
                        let m = 1 + rng.below(64);
                        (
                            format!(".param .align {align} {t} k{round}_p{i}[{m}]"),
                            size * m,
                        )
                    }
                    _ => (format!("\n\t.param  {t}\tk{round}_p{i} /* c */"), size),
                };
                decls.push(decl);
                want.push(bytes);
            }
            let ptx = format!(
                "// .entry k{round}_decoy(.param .u8 x)\n.visible .entry k{round}(\n{}\n) // @k{round}\n{{ ret; }}\n",
                decls.join(",\n")
            );
            assert_eq!(
                param_sizes(&ptx, &format!("k{round}")),
                Some(want.clone()),
                "{ptx}"
            );
            assert_eq!(param_sizes(&ptx, &format!("k{round}_decoy")), None);
            exact += 1;

            // Cut anywhere, or a byte replaced: no panic, and any sizes read are ones such a
            // text can declare (the generator's largest is 16 x 64 bytes; a replaced digit only
            // lowers a count).
            let mut bytes = ptx.clone().into_bytes();
            let at = rng.below(bytes.len());
            if rng.below(2) == 0 {
                bytes.truncate(at);
            } else {
                bytes[at] = b"(),.[] \n/*0x"[rng.below(12)];
            }
            let noisy_ptx = String::from_utf8_lossy(&bytes);
            if let Some(got) = param_sizes(&noisy_ptx, &format!("k{round}")) {
                assert!(
                    got.iter().all(|&s| s <= 16 * 64),
                    "{got:?} from:\n{noisy_ptx}"
                );
            }
            noisy += 1;
        }
        assert_eq!((exact, noisy), (2000, 2000));
    }

    #[test]
    fn ptx_files_are_read_or_named() {
        let mut checks = 0;
        let dir = std::env::temp_dir().join(format!("ptx-sync-read-ptx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("k.ptx");
        std::fs::write(&good, RUSTC).unwrap();
        assert_eq!(read_ptx(&good).unwrap(), RUSTC);
        checks += 1;

        let missing = dir.join("missing.ptx");
        assert!(matches!(read_ptx(&missing), Err(Error::PtxNotFound(p)) if p == missing));
        checks += 1;

        let unreadable = |path: &Path, kind: std::io::ErrorKind, hint: &str| {
            let e = read_ptx(path).expect_err("read");
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("cannot read PTX file {}: ", path.display())),
                "{msg}"
            );
            assert!(msg.ends_with(&format!("({hint})")), "{msg}");
            match e {
                Error::PtxUnreadable { path: p, source } => {
                    assert_eq!((p.as_path(), source.kind()), (path, kind))
                }
                other => panic!("{}: {other}", path.display()),
            }
        };
        unreadable(
            &dir,
            std::io::ErrorKind::IsADirectory,
            "give the path of the .ptx file in it",
        );
        checks += 1;
        let latin1 = dir.join("latin1.ptx");
        std::fs::write(&latin1, b".version 8.4 // caf\xe9\n").unwrap();
        unreadable(
            &latin1,
            std::io::ErrorKind::InvalidData,
            "PTX is ASCII text: is this the .ptx file?",
        );
        checks += 1;

        // A path that is not UTF-8 is still a path: read, or named when missing.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = dir.join(std::ffi::OsStr::from_bytes(b"k\xff.ptx"));
            std::fs::write(&odd, RUSTC).unwrap();
            assert_eq!(read_ptx(&odd).unwrap(), RUSTC);
            let odd_missing = dir.join(std::ffi::OsStr::from_bytes(b"gone\xfe.ptx"));
            assert!(
                matches!(read_ptx(&odd_missing), Err(Error::PtxNotFound(p)) if p == odd_missing)
            );
            checks += 2;
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(checks, if cfg!(unix) { 6 } else { 4 });
    }
}
