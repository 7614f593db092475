//! The report, checked without a GPU: each row's verdict, the table, CSV, JSON and Markdown
//! formats, and the weak rates by stress parameter (`tuning`).

use ptx_sync_litmus::launch::Launch;
use ptx_sync_litmus::oracle::Class;
use ptx_sync_litmus::report::{self, grouped, Outcome, Row};
use ptx_sync_litmus::tuning;
use std::collections::BTreeMap;

fn outcome(label: &str, count: u64, class: Class) -> Outcome {
    Outcome {
        label: label.into(),
        count,
        class,
    }
}

fn row(claim: bool, instances: u64, outcomes: Vec<Outcome>) -> Row {
    Row {
        test: "MP".into(),
        variant: if claim { "sync" } else { "relaxed" }.into(),
        scope: "gpu".into(),
        placement: "across CTAs".into(),
        instances,
        outcomes,
        launches: 3,
        seconds: 1.5,
        claim,
    }
}

#[test]
fn verdicts() {
    let ok = row(
        true,
        100,
        vec![
            outcome("[0, 0]", 60, Class::Sc),
            outcome("[1, 1]", 40, Class::Sc),
        ],
    );
    assert_eq!(ok.verdict(), "ok: 0 forbidden");
    assert!(ok.passed());
    assert_eq!((ok.weak(), ok.forbidden(), ok.impossible()), (0, 0, 0));

    let forbidden = row(
        true,
        100,
        vec![
            outcome("[0, 0]", 99, Class::Sc),
            outcome("[1, 0]", 1, Class::Forbidden),
        ],
    );
    assert_eq!(forbidden.verdict(), "FORBIDDEN SEEN");
    assert!(!forbidden.passed());
    assert_eq!((forbidden.weak(), forbidden.forbidden()), (1, 1));

    let impossible = row(
        true,
        100,
        vec![
            outcome("[0, 0]", 99, Class::Sc),
            outcome("value > 3", 1, Class::Impossible),
        ],
    );
    assert_eq!(impossible.verdict(), "HARNESS ERROR");
    assert!(!impossible.passed());
    // Impossible outranks forbidden.
    let both = row(
        true,
        3,
        vec![
            outcome("[2, 0]", 1, Class::Impossible),
            outcome("[1, 0]", 1, Class::Forbidden),
            outcome("[0, 0]", 1, Class::Sc),
        ],
    );
    assert_eq!(both.verdict(), "HARNESS ERROR");

    for instances in [99, 101, 0] {
        let short = row(true, instances, vec![outcome("[0, 0]", 100, Class::Sc)]);
        assert_eq!(short.verdict(), "HARNESS ERROR", "{instances}");
        assert!(!short.passed());
    }

    let weak = row(
        false,
        1_000_000,
        vec![
            outcome("[0, 0]", 999_750, Class::Sc),
            outcome("[1, 0]", 250, Class::WeakAllowed),
        ],
    );
    assert_eq!(weak.verdict(), "weak seen");
    assert!(weak.passed());
    assert_eq!(weak.weak(), 250);
    assert!((weak.weak_per_million() - 250.0).abs() < 1e-9);

    let quiet = row(false, 10, vec![outcome("[0, 0]", 10, Class::Sc)]);
    assert_eq!(quiet.verdict(), "no weak seen");
    assert!(quiet.passed());
    assert_eq!(quiet.weak_per_million(), 0.0);

    let rate = row(
        false,
        3_000,
        vec![
            outcome("[0, 0]", 2_999, Class::Sc),
            outcome("[1, 0]", 1, Class::WeakAllowed),
        ],
    );
    assert!((rate.weak_per_million() - 1e6 / 3000.0).abs() < 1e-9);
    assert_eq!(row(false, 0, vec![]).weak_per_million(), 0.0);
    assert_eq!(row(false, 0, vec![]).verdict(), "no weak seen");
}

#[test]
fn grouped_thousands() {
    assert_eq!(grouped(1234567), "1,234,567");
    assert_eq!(grouped(123456789), "123,456,789");
    assert_eq!(grouped(0), "0");
    assert_eq!(grouped(999), "999");
    assert_eq!(grouped(1000), "1,000");
    assert_eq!(grouped(100000), "100,000");
    assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
}

fn sample_rows() -> Vec<Row> {
    let mut mutex = row(
        true,
        8,
        vec![
            outcome("ok", 8, Class::Sc),
            outcome("stale", 0, Class::Forbidden),
        ],
    );
    mutex.test = "mutex handoff".into();
    mutex.placement = "host + GPU, \"pinned\"".into();
    vec![
        row(
            false,
            1_000_000,
            vec![
                outcome("[0, 0]", 999_000, Class::Sc),
                outcome("[1, 0]", 1_000, Class::WeakAllowed),
            ],
        ),
        row(true, 2_000, vec![outcome("[1, 1]", 2_000, Class::Sc)]),
        mutex,
    ]
}

/// Splits one CSV line into fields (RFC 4180 quoting).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    assert!(!quoted, "unbalanced quotes: {line}");
    fields
}

#[test]
fn csv_has_a_header_and_one_quoted_line_per_row() {
    let rows = sample_rows();
    let csv = report::csv(&rows);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + rows.len(), "{csv}");
    assert!(csv.ends_with('\n'));
    let header = csv_fields(lines[0]);
    assert_eq!(header[0], "test");
    assert_eq!(header.last().unwrap(), "outcomes");
    for line in &lines[1..] {
        assert_eq!(csv_fields(line).len(), header.len(), "{line}");
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let first = csv_fields(lines[1]);
    assert_eq!(first[col("instances")], "1000000");
    assert_eq!(first[col("weak")], "1000");
    assert_eq!(first[col("weak_per_million")], "1000.000");
    assert_eq!(first[col("claim")], "false");
    assert_eq!(first[col("verdict")], "weak seen");
    assert_eq!(
        first[col("outcomes")],
        "[0, 0]: 999000; [1, 0]: 1000 (weak)"
    );
    assert!(lines[1].contains("\"[0, 0]: 999000; [1, 0]: 1000 (weak)\""));
    let mutex = csv_fields(lines[3]);
    assert_eq!(mutex[col("test")], "mutex handoff");
    assert_eq!(mutex[col("placement")], "host + GPU, \"pinned\"");
    assert!(
        lines[3].contains("\"host + GPU, \"\"pinned\"\"\""),
        "{}",
        lines[3]
    );
    assert_eq!(mutex[col("outcomes")], "ok: 8; stale: 0 (FORBIDDEN)");
    assert_eq!(mutex[col("verdict")], "ok: 0 forbidden");
}

#[test]
fn json_carries_the_extra_members_and_balances() {
    let rows = sample_rows();
    let extra = [
        ("device", report::json_str("H100 \"SXM\"")),
        ("seed", "42".to_string()),
    ];
    let json = report::json(&rows, &extra);
    assert!(json.contains("\"device\": \"H100 \\\"SXM\\\"\","), "{json}");
    assert!(json.contains("\"seed\": 42,"), "{json}");
    assert!(json.contains("\"rows\": ["));
    assert!(json.contains("\"weak_per_million\": 1000.000"));
    assert!(json.contains("\"class\": \"WeakAllowed\""));
    assert!(json.contains("\"placement\": \"host + GPU, \\\"pinned\\\"\""));
    assert_eq!(json.matches("\"test\":").count(), rows.len());
    // Braces and brackets balance outside strings, and never close more than they opened.
    let (mut depth, mut in_str, mut escaped) = (Vec::new(), false, false);
    for c in json.chars() {
        if in_str {
            match (c, escaped) {
                (_, true) => escaped = false,
                ('\\', false) => escaped = true,
                ('"', false) => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => depth.push(c),
            '}' => assert_eq!(depth.pop(), Some('{'), "{json}"),
            ']' => assert_eq!(depth.pop(), Some('['), "{json}"),
            _ => {}
        }
    }
    assert!(depth.is_empty() && !in_str, "{json}");
    // No trailing comma before a closing bracket or brace.
    let squeezed: String = json.split_whitespace().collect();
    assert!(
        !squeezed.contains(",]") && !squeezed.contains(",}"),
        "{json}"
    );
    assert_eq!(
        report::json(&[], &[]),
        "{\n  \"rows\": [\n  ]\n}\n",
        "empty report"
    );
    assert_eq!(report::json_str("a\nb\\\u{1}"), "\"a\\nb\\\\\\u0001\"");
}

#[test]
fn markdown_table_has_a_header_a_separator_and_one_line_per_row() {
    let rows = sample_rows();
    let md = report::markdown_table(&rows);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), 2 + rows.len(), "{md}");
    let columns = lines[0].matches('|').count();
    assert!(lines[0].starts_with("| test | variant |"));
    assert!(lines[1].starts_with("|---|"));
    assert_eq!(lines[1].matches('|').count(), columns);
    for line in &lines[2..] {
        assert_eq!(line.matches('|').count(), columns, "{line}");
    }
    assert!(lines[2].contains("| 1,000,000 |"), "{}", lines[2]);
    assert!(lines[2].contains("| 1000.0 | weak seen |"), "{}", lines[2]);
    let table = report::table(&rows);
    assert_eq!(table.lines().count(), 1 + rows.len());
}

// Weak rates by stress parameter.

#[test]
fn by_parameter_sums_per_value() {
    let a = Launch {
        stress_iters: 64,
        stress_pattern: 1,
        stride: 4,
        rendezvous: 1,
        ..Launch::default()
    };
    let b = Launch {
        stress_iters: 64,
        stress_pattern: 2,
        stride: 128,
        rendezvous: 1,
        ..Launch::default()
    };
    let c = Launch {
        stress_iters: 1024,
        stress_pattern: 2,
        stride: 4,
        rendezvous: 0,
        ..Launch::default()
    };
    let launches = [(a, 100, 1), (b, 200, 20), (c, 1000, 300)];
    let t = tuning::by_parameter(&launches);
    let get = |name: &'static str, value: u32| t.get(&(name, value)).copied();
    assert_eq!(get("stress_iters", 64), Some((300, 21)));
    assert_eq!(get("stress_iters", 1024), Some((1000, 300)));
    assert_eq!(get("stress_iters", 0), None);
    assert_eq!(get("stress_pattern", 1), Some((100, 1)));
    assert_eq!(get("stress_pattern", 2), Some((1200, 320)));
    assert_eq!(get("stride", 4), Some((1100, 301)));
    assert_eq!(get("stride", 128), Some((200, 20)));
    assert_eq!(get("rendezvous", 1), Some((300, 21)));
    assert_eq!(get("rendezvous", 0), Some((1000, 300)));
    // Fields all 0 in every launch: one group holding everything.
    assert_eq!(get("stress_lines", 0), Some((1300, 321)));
    assert_eq!(get("pre_stress_pattern", 0), Some((1300, 321)));
    // Each parameter's groups add up to the total.
    let mut per: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for ((name, _), (i, w)) in &t {
        let e = per.entry(*name).or_default();
        e.0 += i;
        e.1 += w;
    }
    assert_eq!(per.len(), tuning::PARAMETERS.len());
    assert!(per.values().all(|&s| s == (1300, 321)), "{per:?}");
    assert!(tuning::by_parameter(&[]).is_empty());
    let md = tuning::markdown(&launches);
    assert!(
        md.contains("| stress_iters | 64 | 300 | 21 | 70000.0 |"),
        "{md}"
    );
    assert_eq!(md.lines().count(), 2 + t.len());
}
