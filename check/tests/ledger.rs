//! The ledger decides the verdict: every request a type's `Deserialize` makes is a line,
//! closed only when a value went through it and the decoder got there. Each test plants
//! what the line must say and asserts the place and reason by their literal names.

use std::collections::BTreeMap;

use hardpack_check::{check, CountingAlloc, Open};
use serde::{Deserialize, Deserializer, Serialize};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Accepts only ids of one form, which the tracer cannot guess.
#[derive(Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Id(String);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.starts_with("id-") && s.len() == 9 {
            Ok(Id(s))
        } else {
            Err(serde::de::Error::custom("not an id"))
        }
    }
}

#[derive(Debug, Deserialize, Serialize)]
struct Group {
    name: String,
    members: Vec<Id>,
}

/// The ledger's lines that are variants, by place.
fn variant_places(report: &hardpack_check::Report) -> Vec<&str> {
    report
        .ledger
        .lines
        .iter()
        .filter(|l| l.variant)
        .map(|l| l.place.as_str())
        .collect()
}

fn open_places(report: &hardpack_check::Report) -> BTreeMap<String, &'static str> {
    report
        .ledger
        .open()
        .iter()
        .map(|l| (l.place.clone(), l.open.as_ref().map_or("", Open::name)))
        .collect()
}

#[test]
fn a_collection_whose_element_refuses_every_value_leaves_the_element_open() {
    let report = check::<Group>().run();
    assert!(!report.is_hardened(), "{}", report.text());
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Group.members[]".to_string(), "refused")])
    );
    let line = report.ledger.open()[0];
    assert!(
        line.open
            .as_ref()
            .unwrap()
            .reason("hardpack")
            .contains("not an id"),
        "{line:?}"
    );
}

#[test]
fn a_sample_holding_an_element_closes_it() {
    let report = check::<Group>()
        .sample(&Group {
            name: "ops".into(),
            members: vec![Id("id-000042".into())],
        })
        .run();
    assert!(report.is_hardened(), "{}", report.text());
}

#[derive(Debug, Deserialize, Serialize)]
struct Envelope {
    kind: u8,
    body: serde_json::Value,
}

#[test]
fn an_opaque_place_is_open_and_named() {
    let report = check::<Envelope>().run();
    assert!(!report.is_hardened(), "{}", report.text());
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Envelope.body".to_string(), "opaque")])
    );
}

#[test]
fn a_sample_the_decoder_refuses_leaves_what_only_it_holds_open_with_the_error() {
    let report = check::<Group>()
        .sample(&Group {
            name: "ops".into(),
            members: vec![Id("id-000042".into())],
        })
        .decoder("a decoder refusing members", |bytes| {
            if bytes.windows(3).any(|w| w == b"id-") {
                return Err("members refused".to_string());
            }
            rmp_serde::from_slice::<Group>(bytes).map_err(|e| e.to_string())
        })
        .run();
    assert!(!report.is_hardened(), "{}", report.text());
    let open = report.ledger.open();
    let places: Vec<&str> = open.iter().map(|l| l.name()).collect();
    assert_eq!(places, ["Group.members[]"]);
    assert_eq!(
        open[0].open,
        Some(Open::InsideRefusedSample {
            sample: "sample-0-named".into(),
            error: "members refused".into()
        })
    );
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum Key {
    Numeric(u64),
    Named { name: Id },
}

#[derive(Debug, Deserialize, Serialize)]
struct Lookup {
    first: Key,
    second: Key,
}

#[test]
fn untagged_places_are_seen_only_in_part_without_a_sample() {
    let report = check::<Lookup>().run();
    assert_eq!(
        open_places(&report),
        BTreeMap::from([
            ("Lookup.first".to_string(), "seen-in-part"),
            ("Lookup.second".to_string(), "seen-in-part"),
        ]),
        "{}",
        report.text()
    );
}

#[test]
fn a_sample_passing_both_untagged_places_closes_them_both() {
    let report = check::<Lookup>()
        .sample(&Lookup {
            first: Key::Named {
                name: Id("id-000001".into()),
            },
            second: Key::Numeric(7),
        })
        .run();
    assert!(report.is_hardened(), "{}", report.text());
}

#[derive(Debug, Deserialize, Serialize)]
enum Outer {
    Plain(u8),
    Tagged { inner: Inner },
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Inner {
    A { x: u8 },
    B { y: String },
}

#[test]
fn a_tagged_enum_inside_a_struct_variant_has_every_variant_in_the_ledger() {
    let report = check::<Outer>().run();
    let lines: Vec<&str> = report
        .ledger
        .lines
        .iter()
        .filter(|l| l.variant)
        .map(|l| l.name())
        .collect();
    assert_eq!(
        lines,
        [
            "Outer::Plain",
            "Outer::Tagged",
            "Outer::Tagged.inner::A",
            "Outer::Tagged.inner::B"
        ],
        "{}",
        report.text()
    );
    assert!(report.is_hardened(), "{}", report.text());
}

#[test]
fn a_sample_passing_one_untagged_place_leaves_the_other_open() {
    #[derive(Debug, Deserialize, Serialize)]
    struct Pair {
        first: Key,
        second: Option<Key>,
    }
    let report = check::<Pair>()
        .sample(&Pair {
            first: Key::Numeric(7),
            second: None,
        })
        .run();
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Pair.second?".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

#[test]
fn the_text_json_and_html_render_the_same_open_lines() {
    let report = check::<Group>().run();
    let text = report.text();
    assert!(
        text.contains("open: `Group.members[]` (a str): refused every value tried"),
        "{text}"
    );
    let json = report.json();
    let open: Vec<(&str, &str)> = json["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| !l["open"].is_null())
        .map(|l| (l["place"].as_str().unwrap(), l["open"].as_str().unwrap()))
        .collect();
    assert_eq!(open, [("Group.members[]", "refused")]);
    let html = report.html().unwrap();
    assert!(html.contains("<h2>Verdict: not hardened</h2>"), "{html}");
    // The open line comes first, marked.
    let first_row = html
        .split("<tr class=\"bad\">")
        .nth(1)
        .expect("an open line");
    assert!(
        first_row.starts_with("<td class=\"l\">Group.members[]</td><td class=\"l\">a str</td>"),
        "{first_row}"
    );
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Empty,
    Full(Vec<u8>),
}

#[test]
fn an_adjacently_tagged_enums_variants_are_lines_named_by_the_enum() {
    let report = check::<Adjacent>().run();
    let variants: Vec<(&str, &str)> = report
        .ledger
        .lines
        .iter()
        .filter(|l| l.variant)
        .map(|l| (l.name(), l.what.as_str()))
        .collect();
    assert_eq!(
        variants,
        [
            ("Adjacent::Empty", "a variant (named by its tag)"),
            ("Adjacent::Full", "a variant (named by its tag)")
        ],
        "{}",
        report.text()
    );
    assert!(report.is_hardened(), "{}", report.text());
}

#[test]
fn an_externally_tagged_enums_variants_are_lines_asked_as_variants() {
    let report = check::<Outer>().run();
    let plain = report
        .ledger
        .lines
        .iter()
        .find(|l| l.place == "Outer::Plain")
        .expect("a line for each variant serde lists");
    assert_eq!(plain.what, "a variant");
    assert!(plain.variant);
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Signal {
    Quiet,
    Loud { level: i64 },
}

#[derive(Debug, Deserialize, Serialize)]
struct Channel {
    signal: Option<Signal>,
}

/// An attack written at a variant's place may decode by another route (a `null` where the
/// `Option` is): it did not reach the variant. Under a decoder that refuses every document
/// holding `Loud`, `Loud` stays open however many of its attacks decode around it.
#[test]
fn an_attack_that_decodes_around_its_place_does_not_reach_it() {
    let report = check::<Channel>()
        .decoder("hardpack refusing Loud", |bytes| {
            let value: Channel = hardpack::from_slice(bytes).map_err(|e| e.to_string())?;
            match value.signal {
                Some(Signal::Loud { .. }) => Err("Loud is refused".to_string()),
                _ => Ok(()),
            }
        })
        .run();
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Channel.signal?::Loud".to_string(), "unreached")]),
        "{}",
        report.text()
    );
}

/// Accepts one secret string only: no value the tracer makes.
#[derive(Debug, Serialize)]
struct Secret(String);

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "c1fb8a5419db040b" {
            Ok(Secret(s))
        } else {
            Err(serde::de::Error::custom("not the secret"))
        }
    }
}

fn secret_label<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Secret::deserialize(d).map(|s| s.0)
}

#[derive(Debug, Deserialize, Serialize)]
struct Pair<A, B> {
    a: A,
    b: B,
    n: u8,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Shape {
    Dot,
    Line { length: f64, x: i64, y: u32 },
    Named { name: Secret, filled: bool, z: i64 },
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Mark {
    Tick,
    Cross,
}

#[derive(Debug, Deserialize, Serialize)]
struct Layer {
    depth: u8,
    shape: Shape,
    marks: Vec<Mark>,
    #[serde(deserialize_with = "secret_label")]
    label: String,
}

#[derive(Debug, Deserialize, Serialize)]
struct Drawing {
    origin: Pair<u8, Option<Option<i64>>>,
    tags: BTreeMap<String, u8>,
    #[serde(rename = "top")]
    layer: Layer,
}

#[test]
fn a_refused_tag_belongs_to_the_enum_that_read_it_not_to_an_earlier_struct() {
    // Every document is refused (at `label`). A refused tag names the variants of the
    // enum whose tag it is, never those of a struct read before it (`Pair`, whose last
    // field was searched just before).
    let report = check::<Drawing>().run();
    let places: Vec<String> = report
        .ledger
        .lines
        .iter()
        .map(|l| l.place.clone())
        .collect();
    let variants: Vec<&String> = places.iter().filter(|p| p.contains("::")).collect();
    for variant in ["Dot", "Line", "Named", "Tick", "Cross"] {
        let holding: Vec<&&String> = variants
            .iter()
            .filter(|p| p.ends_with(&format!("::{variant}")))
            .collect();
        assert_eq!(holding.len(), 1, "{variant}: {variants:?}");
    }
    assert!(
        variants.iter().all(|p| !p.starts_with("Pair")),
        "a variant keyed by Pair: {variants:?}"
    );
}

#[derive(Debug, Deserialize, Serialize)]
struct Broadcast {
    signal: Signal,
    shape: Adjacent,
    note: String,
}

#[test]
fn what_the_trace_built_is_said_to_be_built_by_the_trace() {
    // Every line here, the tagged enums' variants included, is built by a run of the
    // trace; a document the check writes passes through them too, but the line says the
    // first that built it.
    let report = check::<Broadcast>().run();
    let lines: Vec<(&str, Option<&str>)> = report
        .ledger
        .lines
        .iter()
        .map(|l| (l.name(), l.built_by.as_deref()))
        .collect();
    for (place, built_by) in &lines {
        assert_eq!(*built_by, Some("the trace"), "{place}: {lines:?}");
    }
    for variant in [
        "signal::Quiet",
        "signal::Loud",
        "Adjacent::Empty",
        "Adjacent::Full",
    ] {
        assert!(
            lines.iter().any(|(place, _)| place.ends_with(variant)),
            "{variant}: {lines:?}"
        );
    }
    report.assert_hardened();
}

#[derive(Debug, Deserialize, Serialize)]
enum Level {
    Low,
    High,
}

#[derive(Debug, Deserialize, Serialize)]
struct Gauge {
    level: Level,
    #[serde(deserialize_with = "secret_label")]
    label: String,
}

#[test]
fn a_listed_variant_no_run_took_is_never_built() {
    // Each run takes `Low` and is refused at `label`: `High` is listed by serde and never
    // taken, and nothing the check writes holds it.
    let report = check::<Gauge>().run();
    let high = report
        .ledger
        .lines
        .iter()
        .find(|l| l.place == "Level::High")
        .expect("a line for each listed variant");
    assert_eq!(high.built_by, None, "{}", report.text());
    assert_eq!(high.open, Some(Open::NeverBuilt), "{}", report.text());
}

/// Serde lists each field's names with its aliases, each field's sorted: `f0_alias, r_f0,
/// a_count, count, ids`. The first field comes after its own alias.
#[derive(Debug, Deserialize, Serialize)]
struct Renamed {
    #[serde(rename = "r_f0", alias = "f0_alias")]
    first: u8,
    #[serde(alias = "a_count")]
    count: u16,
    ids: Vec<Id>,
}

/// The same in a struct variant: `Fields` lists `a_x, x, y`.
#[derive(Debug, Deserialize, Serialize)]
enum Event {
    Plain,
    Fields {
        #[serde(alias = "a_x")]
        x: u8,
        y: Vec<Id>,
    },
}

fn places_under(report: &hardpack_check::Report, prefix: &str) -> Vec<String> {
    report
        .ledger
        .lines
        .iter()
        .filter(|l| l.place.starts_with(prefix))
        .map(|l| l.place.clone())
        .collect()
}

#[test]
fn a_field_is_named_by_its_name_not_by_an_alias_listed_before_it() {
    let report = check::<Renamed>().run();
    assert_eq!(
        places_under(&report, "Renamed."),
        [
            "Renamed.count",
            "Renamed.ids",
            "Renamed.ids[]",
            "Renamed.r_f0"
        ],
        "{}",
        report.text()
    );
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Renamed.ids[]".to_string(), "refused")])
    );
}

#[test]
fn a_struct_variant_field_is_named_by_its_name_not_by_an_alias_listed_before_it() {
    let report = check::<Event>().run();
    assert_eq!(
        places_under(&report, "Event::Fields."),
        ["Event::Fields.x", "Event::Fields.y", "Event::Fields.y[]"],
        "{}",
        report.text()
    );
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Event::Fields.y[]".to_string(), "refused")]),
        "{}",
        report.text()
    );
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Entry {
    on: bool,
    #[serde(rename = "r_level", alias = "a_level")]
    level: u8,
}

/// Every run of its `Deserialize` is refused: the token is an `Id`, which the tracer cannot
/// guess, and it comes after the map of entries.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Registry {
    entries: BTreeMap<String, Entry>,
    token: Id,
}

#[test]
fn a_field_is_named_by_its_name_in_a_type_every_run_of_which_is_refused() {
    let report = check::<Registry>().run();
    assert_eq!(
        places_under(&report, "Entry."),
        ["Entry.on", "Entry.r_level"],
        "{}",
        report.text()
    );
    assert!(!report.is_hardened());
}

#[test]
fn a_sample_keyed_by_aliases_closes_the_fields_they_name() {
    // {"f0_alias": 1, "a_count": 2, "ids": ["id-000001"]}
    let mut bytes = vec![0x83, 0xa8];
    bytes.extend(b"f0_alias");
    bytes.extend([0x01, 0xa7]);
    bytes.extend(b"a_count");
    bytes.extend([0x02, 0xa3]);
    bytes.extend(b"ids");
    bytes.extend([0x91, 0xa9]);
    bytes.extend(b"id-000001");
    let report = check::<Renamed>().sample_bytes("by-aliases", bytes).run();
    assert!(report.is_hardened(), "{}", report.text());
    assert_eq!(
        places_under(&report, "Renamed."),
        [
            "Renamed.count",
            "Renamed.ids",
            "Renamed.ids[]",
            "Renamed.r_f0"
        ]
    );
}

/// An alias in the middle, `f0, f1, f1_alias, f2`, in a struct met only inside a tuple
/// variant, under a struct whose first field has an alias too (a generated type of the
/// proof's, seed 1795953473).
#[derive(Debug, Deserialize, Serialize)]
struct Aliased {
    f0: bool,
    #[serde(alias = "f1_alias")]
    f1: Vec<[i64; 2]>,
    f2: u8,
}

#[derive(Debug, Deserialize, Serialize)]
enum Holding {
    Empty,
    Held(u32, Aliased),
    Other,
}

#[derive(Debug, Deserialize, Serialize)]
struct Carrier {
    #[serde(alias = "f0_alias")]
    f0: Vec<Holding>,
    f1: i64,
    f2: i64,
}

#[test]
fn a_struct_inside_a_variant_only_a_sample_holds_is_named_by_its_fields() {
    let carrying = |holding| Carrier {
        f0: vec![holding],
        f1: -5,
        f2: -5,
    };
    let held = Aliased {
        f0: true,
        f1: vec![[-5, -5]],
        f2: 7,
    };
    // Every document holding the variant refused: what only the sample holds stays open,
    // under the fields' own names.
    let report = check::<Carrier>()
        .sample(&carrying(Holding::Empty))
        .sample(&carrying(Holding::Held(70_000, held)))
        .sample(&carrying(Holding::Other))
        .decoder("refusing Held", |bytes| {
            let value: Carrier = hardpack::from_slice(bytes).map_err(|e| e.to_string())?;
            if hardpack::to_vec(&value)
                .map_err(|e| e.to_string())?
                .windows(4)
                .any(|w| w == b"Held")
            {
                return Err("Held refused".to_string());
            }
            Ok(())
        })
        .run();
    assert_eq!(
        places_under(&report, "Aliased."),
        [
            "Aliased.f0",
            "Aliased.f1",
            "Aliased.f1[]",
            "Aliased.f1[].0",
            "Aliased.f1[].1",
            "Aliased.f2"
        ],
        "{}",
        report.text()
    );
}

/// Lists `f0_alias, r_f0, a_id, id`; its last field refuses every value the tracer makes, so
/// no run reads it whole.
#[derive(Debug, Deserialize, Serialize)]
struct NeverWhole {
    #[serde(rename = "r_f0", alias = "f0_alias")]
    first: u8,
    #[serde(alias = "a_id")]
    id: Id,
}

#[test]
fn a_struct_never_read_whole_names_its_fields_by_their_names() {
    let report = check::<NeverWhole>().run();
    assert_eq!(
        places_under(&report, "NeverWhole."),
        ["NeverWhole.id", "NeverWhole.r_f0"],
        "{}",
        report.text()
    );
    let id = report
        .ledger
        .lines
        .iter()
        .find(|l| l.place == "NeverWhole.id")
        .unwrap();
    assert!(
        id.open
            .as_ref()
            .is_some_and(|open| open.reason("hardpack").contains("not an id")),
        "{id:?}"
    );
}

/// An adjacently tagged enum whose variant holds an externally tagged one: the inner enum's
/// unit variant is a str beside the tag.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Tagged {
    Unit,
    Pair(u8, u8),
    Holds(Mode),
}

#[derive(Debug, Deserialize, Serialize)]
enum Mode {
    Plain,
    Count(u8),
}

#[derive(Debug, Deserialize, Serialize)]
struct HoldsAdjacent {
    e: Tagged,
}

#[test]
fn an_enum_inside_an_adjacently_tagged_variant_does_not_lend_it_variants() {
    let report = check::<HoldsAdjacent>().run();
    assert_eq!(
        variant_places(&report),
        ["Tagged::Holds", "Tagged::Pair", "Tagged::Unit"],
        "{}",
        report.text()
    );
    assert!(report.is_hardened(), "{}", report.text());
}

/// An adjacently tagged variant holding an internally tagged enum: the inner enum's tag is an
/// entry of a map inside the content.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum HoldsTagged {
    Empty,
    Holds(TaggedInside, String),
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum TaggedInside {
    First,
    Second,
}

#[derive(Debug, Deserialize, Serialize)]
struct HoldsTaggedField {
    e: HoldsTagged,
}

#[test]
fn an_internally_tagged_enum_inside_adjacently_tagged_content_is_built() {
    let report = check::<HoldsTagged>().run();
    assert!(report.is_hardened(), "{}", report.text());
}

#[test]
fn an_internally_tagged_enum_inside_adjacently_tagged_content_of_a_field_is_built() {
    let report = check::<HoldsTaggedField>().run();
    // Read whole at the field, the enum's variants are still lines of the enum, not of the
    // field, and each once.
    assert_eq!(
        variant_places(&report),
        ["HoldsTagged::Empty", "HoldsTagged::Holds"],
        "{}",
        report.text()
    );
    assert!(report.is_hardened(), "{}", report.text());
}

#[derive(Debug, Deserialize, Serialize)]
enum HoldsTaggedInVariant {
    Nothing,
    Pair(HoldsTagged, u8),
}

#[test]
fn an_internally_tagged_enum_inside_adjacently_tagged_content_of_a_variant_is_built() {
    let report = check::<HoldsTaggedInVariant>().run();
    assert_eq!(
        variant_places(&report)
            .into_iter()
            .filter(|p| p.starts_with("HoldsTagged::"))
            .collect::<Vec<_>>(),
        ["HoldsTagged::Empty", "HoldsTagged::Holds"],
        "{}",
        report.text()
    );
    assert!(report.is_hardened(), "{}", report.text());
}

/// An adjacently tagged variant holding a map keyed by ids that validate: an empty map is
/// accepted, which builds the variant but not its keys.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Directory {
    Empty,
    Members(BTreeMap<Id, u8>),
    Names(Vec<String>),
}

#[test]
fn a_tagged_variant_accepted_only_with_its_collections_empty_is_seen_in_part() {
    let report = check::<Directory>().run();
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Directory::Members".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// An adjacently tagged variant holding an `Option` of ids that validate: accepted with the
/// option `None`, which builds the variant but not the id.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Request {
    Ping,
    Join(Option<Id>, u8),
}

#[test]
fn a_tagged_variant_accepted_only_with_an_option_none_is_seen_in_part() {
    let report = check::<Request>().run();
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Request::Join".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// An adjacently tagged variant holding an externally tagged enum, one of whose variants
/// holds an id that validates: a value taking the other variant builds the tagged variant,
/// but not the enum inside it whole.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Command {
    Stop,
    Run(Target),
}

#[derive(Debug, Deserialize, Serialize)]
enum Target {
    Everyone,
    Member(Id),
}

#[test]
fn a_tagged_variant_whose_inner_enum_was_taken_in_part_is_seen_in_part() {
    let report = check::<Command>().run();
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Command::Run".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// The same inside an internally tagged variant, behind an `Option`: serde reads the content
/// from its buffer, so the enum inside is seen only through the tracer's values and refusals.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Job {
    Idle,
    Run { target: Option<Target>, retries: u8 },
}

#[derive(Debug, Deserialize, Serialize)]
struct HoldsJob {
    job: (Job, u32),
}

#[test]
fn an_internally_tagged_variant_whose_inner_enum_was_taken_in_part_is_seen_in_part() {
    let report = check::<HoldsJob>().run();
    assert!(!report.is_hardened(), "{}", report.text());
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("HoldsJob.job.0::Run".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// An internally tagged variant whose only field is an `Option` of an id that validates:
/// its map form needs no field at all, so only its sequence form asks for the option.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Invite {
    Open,
    Named { member: Option<Id> },
}

#[test]
fn an_internally_tagged_variant_with_an_option_never_accepted_some_is_seen_in_part() {
    let report = check::<Invite>().run();
    assert_eq!(
        open_places(&report),
        // At the root, an internally tagged enum's variants are keyed by the root's place.
        BTreeMap::from([("::Named".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// The same enum inside a struct inside an option in the content: its variants are followed
/// where the struct holds it, through the variant's sequence form.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Placement {
    Nowhere,
    At { place: Option<Placed>, retries: u8 },
}

#[derive(Debug, Deserialize, Serialize)]
struct Placed {
    x: f64,
    target: Target,
    n: u8,
}

#[test]
fn an_enum_in_a_struct_in_an_internally_tagged_variant_is_taken_only_where_it_is_read() {
    let report = check::<(Placement, u8)>().run();
    assert!(!report.is_hardened(), "{}", report.text());
    assert_eq!(
        open_places(&report),
        BTreeMap::from([(".0::At".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// Control: the inner enum's variants all accept what the tracer hands them.
#[derive(Debug, Deserialize, Serialize)]
enum Plain {
    Everyone,
    Member(String),
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum PlainJob {
    Idle,
    Run { target: Option<Plain>, retries: u8 },
}

#[test]
fn an_internally_tagged_variant_whose_inner_enum_was_taken_whole_is_built() {
    let report = check::<PlainJob>().run();
    assert!(report.is_hardened(), "{}", report.text());
}

/// A sample naming the variant the trace built only in part, but holding the inner enum in
/// the variant the trace took already: it names the variant and builds nothing new, so the
/// variant stays seen in part.
#[test]
fn a_sample_naming_a_variant_seen_in_part_without_what_it_lacks_leaves_it_open() {
    let report = check::<HoldsJob>()
        .sample(&HoldsJob {
            job: (
                Job::Run {
                    target: Some(Target::Everyone),
                    retries: 2,
                },
                7,
            ),
        })
        .run();
    assert!(!report.is_hardened(), "{}", report.text());
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("HoldsJob.job.0::Run".to_string(), "seen-in-part")]),
        "{}",
        report.text()
    );
}

/// A sample holding what the variant lacked (the id that validates): the trace takes it as
/// one of its own values, probes its words, finds the inner enum and takes its other variant
/// there; the variant is built.
#[test]
fn a_sample_holding_what_a_variant_lacked_builds_it_and_its_enum_whole() {
    let report = check::<HoldsJob>()
        .sample(&HoldsJob {
            job: (
                Job::Run {
                    target: Some(Target::Member(Id("id-123456".into()))),
                    retries: 2,
                },
                7,
            ),
        })
        .run();
    assert!(report.is_hardened(), "{}", report.text());
}

/// A recursive struct inside an internally tagged variant: every value the trace builds has
/// the innermost list empty. The type the list holds is the one built around it, so the
/// recursion does not leave the variant open (nor spend the search's tries building it into
/// itself).
#[derive(Debug, Deserialize, Serialize)]
struct Tree {
    label: u8,
    children: Vec<Tree>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t")]
enum Forest {
    Bare,
    Grown { trees: Vec<Tree> },
}

#[test]
fn a_recursive_struct_inside_a_tagged_variant_is_built_once_not_into_itself() {
    let report = check::<Forest>().run();
    assert!(report.is_hardened(), "{}", report.text());
}

/// A sample closes the tagged variant the trace could build only in part (the enum inside it
/// holds an id that validates): the sample passes through the variant and the id.
#[test]
fn a_sample_of_an_adjacently_tagged_variant_written_as_a_sequence_builds_it() {
    let report = check::<Command>()
        .sample(&Command::Run(Target::Member(Id("id-123456".into()))))
        .run();
    assert!(report.is_hardened(), "{}", report.text());
    assert_eq!(open_places(&report), BTreeMap::new(), "{}", report.text());
}

/// The same sample as the bytes rmp-serde writes by default, a sequence alone (`["Run",
/// {"Member": "id-123456"}]`, no map of names beside it): its first item names the variant.
#[test]
fn a_captured_sequence_of_an_adjacently_tagged_variant_builds_it() {
    let compact = rmp_serde::to_vec(&Command::Run(Target::Member(Id("id-123456".into())))).unwrap();
    assert_eq!(
        compact[0], 0x92,
        "rmp-serde writes the enum as a sequence of two"
    );
    let report = check::<Command>().sample_bytes("captured", compact).run();
    assert!(report.is_hardened(), "{}", report.text());
    assert_eq!(open_places(&report), BTreeMap::new(), "{}", report.text());
}

/// An adjacently tagged enum behind an id that validates: only a captured sequence reaches
/// it. The variant the sample does not hold is still found, and its content validates too,
/// so it stays open: the kit does not say hardened.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Order {
    Cancel(Id),
    Place(u8),
}

#[derive(Debug, Deserialize, Serialize)]
struct Ticket {
    id: Id,
    order: Order,
}

#[test]
fn a_variant_beside_a_captured_sequence_is_found_and_left_open() {
    let compact = rmp_serde::to_vec(&Ticket {
        id: Id("id-123456".into()),
        order: Order::Place(3),
    })
    .unwrap();
    let report = check::<Ticket>().sample_bytes("captured", compact).run();
    assert!(!report.is_hardened(), "{}", report.text());
    assert_eq!(
        open_places(&report),
        BTreeMap::from([("Order::Cancel".to_string(), "refused")]),
        "{}",
        report.text()
    );
}

/// Two adjacently tagged enums in one struct: each tag refused while its enum is searched
/// whole names that enum's variants, not the other's.
#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Left {
    A,
    B(u8),
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "k", content = "v")]
enum Right {
    C,
    D(String),
}

#[derive(Debug, Deserialize, Serialize)]
struct TwoAdjacent {
    left: Left,
    right: Right,
}

/// `T`, holding a `Left` and a `Right` somewhere, has each enum's variants as its own lines,
/// all closed.
fn each_keeps_its_own_variants<T: serde::de::DeserializeOwned + 'static>() {
    let report = check::<T>().run();
    assert_eq!(
        variant_places(&report),
        ["Left::A", "Left::B", "Right::C", "Right::D"],
        "{}",
        report.text()
    );
    assert!(report.is_hardened(), "{}", report.text());
    assert_eq!(open_places(&report), BTreeMap::new(), "{}", report.text());
}

#[test]
fn two_adjacently_tagged_enums_each_keep_their_own_variants() {
    each_keeps_its_own_variants::<TwoAdjacent>();
}

/// The same two enums as elements of sequences: each still names only its own variants.
#[derive(Debug, Deserialize, Serialize)]
struct TwoAdjacentLists {
    lefts: Vec<Left>,
    rights: Vec<Right>,
}

#[test]
fn two_adjacently_tagged_enums_in_sequences_each_keep_their_own_variants() {
    each_keeps_its_own_variants::<TwoAdjacentLists>();
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(tag = "t", content = "c")]
enum Beacon {
    Start,
    Stop,
}

#[derive(Debug, Deserialize, Serialize)]
enum Relay {
    End,
    Link(Beacon, Option<Box<Relay>>),
}

#[test]
fn a_place_no_sample_holds_is_reached_past_a_place_every_sample_holds() {
    // Each sample holds the adjacently tagged `Beacon` and none goes on past `None`: the
    // documents that reach the relay's next link are written with the value the samples
    // gave `Beacon`, or every one of them is refused at `Beacon` before it.
    let report = check::<Relay>()
        .sample(&Relay::Link(Beacon::Start, None))
        .sample(&Relay::Link(Beacon::Stop, None))
        .run();
    assert!(report.is_hardened(), "{}", report.text());
    assert_eq!(open_places(&report), BTreeMap::new());
    assert!(
        report
            .ledger
            .lines
            .iter()
            .any(|l| l.place == "Relay::Link.1?"),
        "{}",
        report.text()
    );
}

#[derive(Debug, Deserialize, Serialize)]
struct Tuned {
    #[serde(rename = "beacon", alias = "b")]
    first: Beacon,
    #[serde(deserialize_with = "secret_label")]
    code: String,
}

#[test]
fn a_field_after_one_with_an_alias_is_named_by_its_own_name_when_no_value_gets_past_it() {
    // The first field has an alias (serde lists `b, beacon, code`), its value is an
    // adjacently tagged enum (which no empty map is), and the second field refuses every
    // value: the struct is asked which name is missing with no field handed.
    let report = check::<Tuned>().run();
    assert!(!report.is_hardened(), "{}", report.text());
    let open = open_places(&report);
    assert_eq!(
        open.get("Tuned.code"),
        Some(&"refused"),
        "{}",
        report.text()
    );
    assert!(open.keys().all(|k| !k.ends_with(".b")), "{}", report.text());
}

#[derive(Debug, Deserialize, Serialize)]
struct Shelf {
    #[serde(alias = "tag_alias")]
    tag: Option<String>,
    count: u32,
    #[serde(rename = "r_label", deserialize_with = "secret_label")]
    label: String,
}

#[derive(Debug, Deserialize, Serialize)]
struct Crate(Option<Option<Shelf>>);

#[test]
fn a_struct_behind_options_a_failed_trace_left_empty_is_asked_its_names() {
    // Every run is refused at `r_label`, so the trace leaves both options handing `None`;
    // the runs that ask `Shelf` which name each field has must still reach it, or its
    // fields are named by serde's list in position (`tag_alias` for `count`).
    let report = check::<Crate>().run();
    assert!(!report.is_hardened(), "{}", report.text());
    let open = open_places(&report);
    assert_eq!(
        open.get("Shelf.r_label"),
        Some(&"refused"),
        "{}",
        report.text()
    );
    assert!(
        open.keys().all(|k| !k.contains("tag_alias")),
        "{}",
        report.text()
    );
}
