//! Which field each name of a struct reads. Serde lists a struct's names with each field's
//! aliases, each field's sorted, so a field may come after its own alias (`f0_alias, r_f0`)
//! and the names after an alias are not the fields' in order. The trace asks the struct's
//! own visitor, one question a run, where the run meets the struct:
//!
//! - how many fields it has: handed no element, it refuses with "struct S with N elements";
//! - which field a name reads: the field identifier it makes of the name (serde's derive
//!   makes one enum variant per field, in order);
//! - by which name it knows a field: handed the field twice it refuses a "duplicate field",
//!   or handed every other field, or every field before it, a "missing field", by that name
//!   (taken only when it is one of that field's listed names).
//!
//! A struct whose visitor answers otherwise (a hand-written one) keeps the names serde lists.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

use super::recording::{read_at, Empty, Tracer};
use super::state::{StructMet, TraceFailure};
use super::Aliases;

/// The error with which a run stops once the struct asked has answered.
pub(super) const ASKED: &str = "hardpack-check: asked";

/// A question to a struct's visitor.
#[derive(Clone, Debug)]
pub(super) enum Question {
    /// How many fields it reads.
    Count,
    /// Which field the name at this index of the listed names reads.
    Field(usize),
    /// By which name it knows this field: the field twice.
    Twice(usize),
    /// The same, by every field but this one, of the struct's this many.
    AllBut(usize, usize),
    /// The same, by the fields before this one: what none of their values is read before
    /// says it is missing (field 0: an empty map, nothing read).
    Before(usize),
}

/// Whether this run puts its question to the struct serde lists as `listed`.
pub(super) fn is_asked(tracer: &Tracer<'_>, listed: &'static [&'static str]) -> bool {
    matches!(&tracer.state.question, Some((asked, _)) if *asked == listed)
}

/// Puts this run's question to `visitor` (that of the struct serde lists as `listed`) and
/// keeps its answer; the error that stops the run, since the visitor is spent.
pub(super) fn answer<V: Visitor<'static>>(
    tracer: &mut Tracer<'_>,
    listed: &'static [&'static str],
    visitor: V,
) -> TraceFailure {
    if let Some((_, question)) = tracer.state.question.take() {
        tracer.state.answer = ask(tracer, listed, &question, visitor);
    }
    TraceFailure(ASKED.into())
}

/// Asks `visitor` (a struct's, serde listing its names as `listed`) `question`; its answer
/// in words, or `None`.
fn ask<V: Visitor<'static>>(
    tracer: &mut Tracer<'_>,
    listed: &'static [&'static str],
    question: &Question,
    visitor: V,
) -> Option<String> {
    // The fields handed: one twice, or all but one.
    let keys = match question {
        Question::Count => return visitor.visit_seq(Empty).err().map(|e| e.0),
        Question::Field(j) => {
            let mut answer = None;
            let _ = visitor.visit_map(NameOnly {
                name: listed.get(*j)?,
                answer: &mut answer,
            });
            return answer;
        }
        Question::Twice(field) => vec![*field, *field],
        Question::AllBut(field, count) => (0..*count).filter(|i| i != field).collect(),
        Question::Before(field) => (0..*field).collect(),
    };
    visitor
        .visit_map(Fields {
            names: super::field_names(&tracer.state.aliases, listed),
            tracer,
            keys,
            next: 0,
        })
        .err()
        .map(|e| e.0)
}

/// A map of one key, the name: the answer is the field identifier the visitor makes of it.
struct NameOnly<'a> {
    name: &'static str,
    answer: &'a mut Option<String>,
}

impl MapAccess<'static> for NameOnly<'_> {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        if self.answer.is_some() {
            return Ok(None);
        }
        let identifier = seed.deserialize(Identifier(self.name))?;
        *self.answer = Some(format!("{:?}", std::mem::discriminant(&identifier)));
        Ok(Some(identifier))
    }

    fn next_value_seed<S: DeserializeSeed<'static>>(
        &mut self,
        _seed: S,
    ) -> Result<S::Value, TraceFailure> {
        Err(TraceFailure(ASKED.into()))
    }
}

/// A field's name, handed to the visitor of its identifier.
struct Identifier(&'static str);

impl<'de> de::Deserializer<'de> for Identifier {
    type Error = TraceFailure;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceFailure> {
        visitor.visit_str(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// A map of chosen fields, each keyed by its index and read by the tracer where the trace
/// reads the field of that index (`names`: the names the trace gives the struct's fields,
/// in order), so that each is handed what its search there accepted.
struct Fields<'a, 't> {
    tracer: &'a mut Tracer<'t>,
    keys: Vec<usize>,
    names: Vec<String>,
    next: usize,
}

impl MapAccess<'static> for Fields<'_, '_> {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        let Some(key) = self.keys.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize((*key as u64).into_deserializer())
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'static>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, TraceFailure> {
        let field = self.keys[self.next - 1];
        let suffix = format!(".{}", self.names.get(field).map_or("?", String::as_str));
        // The smallest value there: an option's `None`, an empty collection.
        let place = format!("{}{suffix}", self.tracer.place);
        self.tracer.state.escapes.insert(place);
        read_at(self.tracer, &suffix, seed).map(|(value, _)| value)
    }
}

/// Learns the field each listed name reads, asking `answer` (which runs the type once with
/// the question put to the struct `listed` where the run meets it) what it needs. `elements`
/// is how many fields a run read, when one read the struct whole. `None`, nothing asked,
/// for a struct of one name (which cannot have an alias) or read whole with as many fields
/// as names; `None` too when the struct answers otherwise than serde's derive does, or has no
/// more names than fields.
pub(super) fn learn(
    listed: &'static [&'static str],
    elements: Option<usize>,
    mut answer: impl FnMut(Question) -> Option<String>,
) -> Option<Vec<String>> {
    if listed.len() < 2 {
        return None;
    }
    let count = match elements {
        Some(count) => count,
        None => said_count(&answer(Question::Count)?)?,
    };
    if count == 0 || count >= listed.len() {
        return None;
    }
    // The field each name reads, by the variant of its identifier: in order, each the one
    // before or the next, from the first field to the last.
    let mut field_of = Vec::with_capacity(listed.len());
    for j in 0..listed.len() {
        let field = said_variant(&answer(Question::Field(j))?)?;
        let expected = match field_of.last() {
            None => field == 0,
            Some(&before) => field == before || field == before + 1,
        };
        if !expected {
            return None;
        }
        field_of.push(field);
    }
    if field_of.last() != Some(&(count - 1)) {
        return None;
    }
    // Each field by its first listed name while its own is asked.
    let mut names: Vec<String> = Vec::with_capacity(count);
    for (j, field) in field_of.iter().enumerate() {
        if names.len() == *field {
            names.push(listed[j].to_string());
        }
    }
    let mut known = names;
    for (field, name) in known.iter_mut().enumerate() {
        let own: Vec<&str> = listed
            .iter()
            .zip(&field_of)
            .filter(|(_, f)| **f == field)
            .map(|(n, _)| *n)
            .collect();
        if own.len() == 1 {
            // A field without aliases is listed by its name alone.
            continue;
        }
        // A name said of another field (an `Option` before it is not missing) is no answer.
        let mut ask_name = |question: Question, prefix: &str| {
            answer(question)
                .and_then(|said| said_name(&said, prefix))
                .filter(|said| own.contains(&said.as_str()))
        };
        *name = ask_name(Question::Twice(field), "duplicate field `")
            .or_else(|| ask_name(Question::AllBut(field, count), "missing field `"))
            .or_else(|| ask_name(Question::Before(field), "missing field `"))?;
    }
    Some(field_of.iter().map(|f| known[*f].clone()).collect())
}

/// The number of elements in serde's refusal of a short sequence: `invalid length 0,
/// expected struct S with 4 elements`.
fn said_count(said: &str) -> Option<usize> {
    let (_, after) = said.rsplit_once(" with ")?;
    let (number, rest) = after.split_once(' ')?;
    rest.starts_with("element").then(|| number.parse().ok())?
}

/// The index of an enum variant, as `Discriminant(2)`.
fn said_variant(said: &str) -> Option<usize> {
    said.strip_prefix("Discriminant(")?
        .strip_suffix(')')?
        .parse()
        .ok()
}

/// The name in serde's refusal `duplicate field `name`` or `missing field `name``.
fn said_name(said: &str, prefix: &str) -> Option<String> {
    let rest = said.strip_prefix(prefix)?;
    Some(rest.split('`').next()?.to_string())
}

/// Learns every struct of `met` (by the names serde lists), asking through `answer` (the
/// struct's names, the question).
pub(super) fn learn_all(
    met: &std::collections::BTreeMap<&'static [&'static str], StructMet>,
    mut answer: impl FnMut(&'static [&'static str], Question) -> Option<String>,
) -> Aliases {
    let mut learnt = Aliases::new();
    for (listed, met) in met {
        if let Some(fields) = learn(listed, met.read, |question| answer(listed, question)) {
            learnt.insert(listed.to_vec(), fields);
        }
    }
    learnt
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answers serde's derive gives for a struct whose fields are `fields` (each its
    /// name and its aliases, as serde lists them), every field's value readable unless it is
    /// in `unreadable`.
    fn derive_answers<'a>(
        fields: &'a [(&'a str, &'a [&'a str])],
        unreadable: &'a [usize],
        asked: &'a mut Vec<String>,
    ) -> impl FnMut(Question) -> Option<String> + 'a {
        let listed: Vec<usize> = fields
            .iter()
            .enumerate()
            .flat_map(|(i, (_, names))| std::iter::repeat_n(i, names.len()))
            .collect();
        move |question| {
            asked.push(format!("{question:?}"));
            Some(match question {
                Question::Count => format!(
                    "invalid length 0, expected struct S with {} elements",
                    fields.len()
                ),
                Question::Field(j) => format!("Discriminant({})", listed[j]),
                Question::Twice(field) if unreadable.contains(&field) => "not the secret".into(),
                Question::Twice(field) => format!("duplicate field `{}`", fields[field].0),
                Question::AllBut(field, _) => {
                    match (0..fields.len()).find(|f| *f != field && unreadable.contains(f)) {
                        Some(_) => "not the secret".into(),
                        None => format!("missing field `{}`", fields[field].0),
                    }
                }
                Question::Before(field) => match (0..field).find(|f| unreadable.contains(f)) {
                    Some(_) => "not the secret".into(),
                    None => format!("missing field `{}`", fields[field].0),
                },
            })
        }
    }

    const LISTED: &[&str] = &["f0_alias", "r_f0", "a_count", "count", "ids"];
    const FIELDS: &[(&str, &[&str])] = &[
        ("r_f0", &["f0_alias", "r_f0"]),
        ("count", &["a_count", "count"]),
        ("ids", &["ids"]),
    ];

    #[test]
    fn each_name_reads_the_field_serde_refuses_by_its_name() {
        let mut asked = Vec::new();
        let learnt = learn(LISTED, None, derive_answers(FIELDS, &[], &mut asked));
        assert_eq!(learnt.unwrap(), ["r_f0", "r_f0", "count", "count", "ids"]);
        // How many fields, which field each name makes, and the name of each with aliases.
        assert_eq!(
            asked,
            [
                "Count", "Field(0)", "Field(1)", "Field(2)", "Field(3)", "Field(4)", "Twice(0)",
                "Twice(1)",
            ]
        );
    }

    #[test]
    fn a_struct_read_whole_is_not_asked_how_many_fields_it_has() {
        let mut asked = Vec::new();
        let learnt = learn(LISTED, Some(3), derive_answers(FIELDS, &[], &mut asked));
        assert_eq!(learnt.unwrap()[1], "r_f0");
        assert!(!asked.contains(&"Count".to_string()), "{asked:?}");
    }

    #[test]
    fn a_struct_that_cannot_have_an_alias_is_asked_nothing() {
        // One name, never read whole; and as many fields read as names.
        let mut asked = Vec::new();
        let one: &[(&str, &[&str])] = &[("only", &["only"])];
        assert_eq!(
            learn(&["only"], None, derive_answers(one, &[], &mut asked)),
            None
        );
        let two: &[(&str, &[&str])] = &[("a", &["a"]), ("b", &["b"])];
        assert_eq!(
            learn(&["a", "b"], Some(2), derive_answers(two, &[], &mut asked)),
            None
        );
        assert_eq!(asked, Vec::<String>::new());
    }

    #[test]
    fn a_field_whose_value_is_refused_is_named_by_the_others_missing_it() {
        let mut asked = Vec::new();
        let learnt = learn(LISTED, None, derive_answers(FIELDS, &[1], &mut asked));
        assert_eq!(learnt.unwrap(), ["r_f0", "r_f0", "count", "count", "ids"]);
        assert!(asked.iter().any(|q| q.starts_with("AllBut(1")), "{asked:?}");
    }

    #[test]
    fn a_field_whose_value_and_whose_siblings_are_refused_is_named_missing_with_none_before_it() {
        // Field 0's value is refused, so twice it says nothing; and field 1 refuses too, so
        // every other field read says nothing. Handed no field, serde says the first missing.
        let fields: &[(&str, &[&str])] = &[("r_f0", &["f0_alias", "r_f0"]), ("x", &["x"])];
        let mut asked = Vec::new();
        let answers = derive_answers(fields, &[0, 1], &mut asked);
        let learnt = learn(&["f0_alias", "r_f0", "x"], None, answers);
        assert_eq!(learnt.unwrap(), ["r_f0", "r_f0", "x"]);
        assert_eq!(
            asked[asked.len() - 3..],
            ["Twice(0)", "AllBut(0, 2)", "Before(0)"]
        );
    }

    #[test]
    fn a_field_no_question_names_leaves_the_struct_unlearnt() {
        // The field with an alias comes second, after a field whose value is refused.
        let fields: &[(&str, &[&str])] = &[("x", &["x"]), ("r_f1", &["f1_alias", "r_f1"])];
        let mut asked = Vec::new();
        let answers = derive_answers(fields, &[0, 1], &mut asked);
        assert_eq!(learn(&["x", "f1_alias", "r_f1"], None, answers), None);
        assert!(asked.contains(&"Before(1)".to_string()), "{asked:?}");
    }

    #[test]
    fn a_name_said_of_another_field_is_no_answer() {
        // An `Option` field with an alias is not missing: handed no field, serde names the
        // next one, which is not the option's.
        let listed = &["a", "a_alias", "b"];
        let answers = |question: Question| match question {
            Question::Count => Some("invalid length 0, expected struct S with 2 elements".into()),
            Question::Field(j) => Some(format!("Discriminant({})", [0, 0, 1][j])),
            Question::Before(_) => Some("missing field `b`".into()),
            _ => Some("not the secret".into()),
        };
        assert_eq!(learn(listed, None, answers), None);
    }

    #[test]
    fn a_struct_with_no_more_names_than_fields_is_left_as_listed() {
        let fields: &[(&str, &[&str])] = &[("a", &["a"]), ("b", &["b"])];
        let mut asked = Vec::new();
        assert_eq!(
            learn(&["a", "b"], None, derive_answers(fields, &[], &mut asked)),
            None
        );
        assert_eq!(asked, ["Count"]);
        assert_eq!(learn(&["a", "b"], Some(2), |_| unreachable!()), None);
        assert_eq!(learn(&["a", "b"], Some(0), |_| unreachable!()), None);
    }

    #[test]
    fn answers_unlike_serde_derive_leave_the_struct_unlearnt() {
        let count = |n: usize| format!("invalid length 0, expected struct S with {n} elements");
        let scripted = |fields: &'static [usize]| {
            move |question: Question| match question {
                Question::Count => Some(count(2)),
                Question::Field(j) => Some(format!("Discriminant({})", fields[j])),
                _ => Some("duplicate field `a`".into()),
            }
        };
        let listed = &["a", "a_alias", "b"];
        assert!(learn(listed, None, scripted(&[0, 0, 1])).is_some());
        // The first name not the first field; a field skipped; a field back; the last
        // field never named.
        assert_eq!(learn(listed, None, scripted(&[1, 1, 1])), None);
        assert_eq!(learn(listed, None, scripted(&[0, 2, 2])), None);
        assert_eq!(learn(listed, None, scripted(&[0, 1, 0])), None);
        assert_eq!(learn(listed, None, scripted(&[0, 0, 0])), None);
        // A refusal that does not count; an identifier that is not an enum's.
        assert_eq!(learn(listed, None, |_| Some("nope".into())), None);
        assert_eq!(learn(listed, None, |_| None), None);
    }

    #[test]
    fn serde_refusals_are_read_for_what_they_say() {
        let one = "invalid length 0, expected struct S with 1 element";
        assert_eq!(said_count(one), Some(1));
        let variant = "invalid length 1, expected struct variant E::V with 12 elements";
        assert_eq!(said_count(variant), Some(12));
        assert_eq!(
            said_count("invalid length 0, expected a tuple with 2"),
            None
        );
        assert_eq!(said_count("expected with many elements"), None);
        assert_eq!(said_variant("Discriminant(7)"), Some(7));
        assert_eq!(said_variant("Discriminant(7"), None);
        assert_eq!(said_variant("7"), None);
        let duplicate = "duplicate field `r_f0`";
        assert_eq!(
            said_name(duplicate, "duplicate field `").as_deref(),
            Some("r_f0")
        );
        assert_eq!(said_name(duplicate, "missing field `"), None);
    }
}
