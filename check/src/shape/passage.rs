//! Which nodes of a type a valid document passes through: the type's `Deserialize` reads the
//! sample, and every request it makes is recorded under the key the tracer gives the same
//! place (`Inner.items[]`, `Event::Data.0`). A sample closes only the nodes it passes.

use std::fmt;

use serde::de::{
    self, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};

use super::recording::positions;
use super::Names;
use crate::sample::{Sample, SampleDeserializer};

/// The error of a sample the type refuses.
#[derive(Debug)]
struct Refused(String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl de::Error for Refused {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Refused(msg.to_string())
    }
}

/// The keys of every node `T` reads from `sample`, in the order read (each once), and the
/// variants its tags may name (each `place::word` for a word that may be a tag where the
/// trace handed samples: what the ledger counts only where the trace found such a variant);
/// or the type's refusal. `names` are the trace's: a generic with two parameters is two keys,
/// and a struct the trace handed samples is read here as one value too, so both name the
/// same places; a type the trace did not meet is keyed by its serde name.
pub(crate) fn passage<T: de::Deserialize<'static>>(
    sample: &Sample,
    names: &Names,
) -> Result<(Vec<String>, Vec<String>), String> {
    let mut passed = Vec::new();
    let result = T::deserialize(Passage {
        sample,
        scope: String::new(),
        rel: String::new(),
        passed: &mut passed,
        names,
    });
    match result {
        Ok(_) => {
            let mut seen = std::collections::BTreeSet::new();
            passed.retain(|key| seen.insert(key.clone()));
            let (tags, keys) = passed.into_iter().partition(|k| k.starts_with(TAG));
            Ok((
                keys,
                tags.into_iter()
                    .map(|t: String| t[TAG.len()..].to_string())
                    .collect(),
            ))
        }
        Err(e) => Err(e.0),
    }
}

/// The suffixes of named fields: `.name`.
fn dotted(names: Vec<String>) -> Vec<String> {
    names.into_iter().map(|n| format!(".{n}")).collect()
}

/// Marks a passed key that is a tag's possible variant.
const TAG: &str = "\u{0}tag:";

struct Passage<'a, 'p> {
    sample: &'a Sample,
    scope: String,
    rel: String,
    passed: &'p mut Vec<String>,
    names: &'p Names,
}

impl<'a, 'p> Passage<'a, 'p> {
    fn pass(&mut self) {
        self.passed.push(format!("{}{}", self.scope, self.rel));
    }

    fn at<'b>(&'b mut self, sample: &'a Sample, suffix: &str) -> Passage<'a, 'b> {
        Passage {
            sample,
            scope: self.scope.clone(),
            rel: format!("{}{suffix}", self.rel),
            passed: self.passed,
            names: self.names,
        }
    }

    fn inside<'b>(&'b mut self, scope: String, rel: String) -> Passage<'a, 'b> {
        Passage {
            sample: self.sample,
            scope,
            rel,
            passed: self.passed,
            names: self.names,
        }
    }

    fn identify<V>(&self, name: &'static str) -> String {
        self.names
            .identities
            .get(&(name.to_string(), std::any::type_name::<V>()))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    fn plain<V: Visitor<'static>>(mut self, visitor: V) -> Result<V::Value, Refused> {
        self.pass();
        de::Deserializer::deserialize_any(SampleDeserializer::<Refused>::new(self.sample), visitor)
    }

    /// A value read whole (through serde's buffering, or a struct the trace handed samples):
    /// its place, and each word that may be a tag naming a variant of `enum_key`.
    fn whole<V: Visitor<'static>>(self, enum_key: &str, visitor: V) -> Result<V::Value, Refused> {
        for word in self.sample.named_variants(&self.names.tag_keys) {
            self.passed.push(format!("{TAG}{enum_key}::{word}"));
        }
        self.plain(visitor)
    }

    /// The sample's items or entries handed to `visitor` as a struct's or tuple's fields:
    /// an item is named by its position in `names`, an entry by the field its key reads
    /// (serde listing the struct's names as `listed`).
    fn fields<V: Visitor<'static>>(
        self,
        names: Vec<String>,
        listed: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        match self.sample {
            Sample::Array(items) => visitor.visit_seq(Items {
                items: items.iter(),
                names,
                next: 0,
                passage: self,
            }),
            Sample::Map(entries) => visitor.visit_map(Entries {
                entries: entries.iter(),
                value: None,
                names: None,
                listed,
                passage: self,
            }),
            _ => de::Deserializer::deserialize_any(
                SampleDeserializer::<Refused>::new(self.sample),
                visitor,
            ),
        }
    }
}

struct Items<'a, 'p> {
    items: std::slice::Iter<'a, Sample>,
    /// Each item's suffix; past the last, `[]` (a sequence's element).
    names: Vec<String>,
    next: usize,
    passage: Passage<'a, 'p>,
}

impl SeqAccess<'static> for Items<'_, '_> {
    type Error = Refused;

    fn next_element_seed<S: DeserializeSeed<'static>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Refused> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let suffix = self
            .names
            .get(self.next)
            .cloned()
            .unwrap_or_else(|| "[]".into());
        self.next += 1;
        seed.deserialize(self.passage.at(item, &suffix)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<'a, 'p> {
    entries: std::slice::Iter<'a, (Sample, Sample)>,
    value: Option<(&'a Sample, String)>,
    /// For a map, `{key}` and `{}`; for a struct read as a map (`None`), the key's name.
    names: Option<(String, String)>,
    /// The names serde lists for the struct read as a map.
    listed: &'static [&'static str],
    passage: Passage<'a, 'p>,
}

impl MapAccess<'static> for Entries<'_, '_> {
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Refused> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        match &self.names {
            Some((key_suffix, value_suffix)) => {
                self.value = Some((value, value_suffix.clone()));
                let key_suffix = key_suffix.clone();
                seed.deserialize(self.passage.at(key, &key_suffix))
                    .map(Some)
            }
            None => {
                let name = match key {
                    Sample::Str(s) => {
                        format!(".{}", self.passage.names.field_named(self.listed, s))
                    }
                    other => format!(".{other}"),
                };
                self.value = Some((value, name));
                seed.deserialize(SampleDeserializer::<Refused>::new(key))
                    .map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Refused> {
        match self.value.take() {
            Some((value, suffix)) => seed.deserialize(self.passage.at(value, &suffix)),
            None => Err(Refused("a map value asked before its key".into())),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

macro_rules! plain {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, Refused> {
            self.plain(visitor)
        })*
    };
}

impl<'a, 'p> de::Deserializer<'static> for Passage<'a, 'p> {
    type Error = Refused;

    fn is_human_readable(&self) -> bool {
        false
    }

    plain!(deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any);

    fn deserialize_any<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, Refused> {
        let key = format!("{}{}", self.scope, self.rel);
        self.whole(&key, visitor)
    }

    fn deserialize_option<V: Visitor<'static>>(mut self, visitor: V) -> Result<V::Value, Refused> {
        self.pass();
        match self.sample {
            Sample::Nil => visitor.visit_none(),
            sample => visitor.visit_some(self.at(sample, "?")),
        }
    }

    fn deserialize_seq<V: Visitor<'static>>(mut self, visitor: V) -> Result<V::Value, Refused> {
        self.pass();
        match self.sample {
            Sample::Array(items) => visitor.visit_seq(Items {
                items: items.iter(),
                names: Vec::new(),
                next: 0,
                passage: self,
            }),
            _ => self.plain(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'static>>(mut self, visitor: V) -> Result<V::Value, Refused> {
        self.pass();
        match self.sample {
            Sample::Map(entries) => visitor.visit_map(Entries {
                entries: entries.iter(),
                value: None,
                names: Some(("{key}".into(), "{}".into())),
                listed: &[],
                passage: self,
            }),
            _ => self.plain(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'static>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.pass();
        self.fields(positions(len), &[], visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'static>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.plain(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.pass();
        let scope = self.identify::<V>(name);
        visitor.visit_newtype_struct(self.inside(scope, ".0".into()))
    }

    fn deserialize_tuple_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.pass();
        let scope = self.identify::<V>(name);
        self.inside(scope, String::new())
            .fields(positions(len), &[], visitor)
    }

    fn deserialize_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        let scope = self.identify::<V>(name);
        if self.names.sampled_structs.contains(&scope) {
            return self.whole(&scope, visitor);
        }
        self.pass();
        let names = self.names.field_names(fields);
        self.inside(scope, String::new())
            .fields(dotted(names), fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.pass();
        let scope = self.identify::<V>(name);
        let (tag, content) = match self.sample {
            Sample::Map(entries) if entries.len() == 1 => (&entries[0].0, Some(&entries[0].1)),
            Sample::Map(_) | Sample::Array(_) => {
                return Err(Refused(format!(
                    "enum {name} written neither as its variant nor as a one-entry map"
                )))
            }
            tag => (tag, None),
        };
        let variant = match tag {
            Sample::Str(s) => s.clone(),
            Sample::Int(i) => usize::try_from(*i)
                .ok()
                .and_then(|i| variants.get(i))
                .map_or_else(|| i.to_string(), |v| v.to_string()),
            other => other.to_string(),
        };
        visitor.visit_enum(Chosen {
            tag,
            content,
            passage: Passage {
                sample: content.unwrap_or(&Sample::Nil),
                rel: format!("::{variant}"),
                scope,
                passed: self.passed,
                names: self.names,
            },
        })
    }
}

struct Chosen<'a, 'p> {
    tag: &'a Sample,
    content: Option<&'a Sample>,
    passage: Passage<'a, 'p>,
}

impl<'a, 'p> EnumAccess<'static> for Chosen<'a, 'p> {
    type Error = Refused;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'static>>(
        mut self,
        seed: S,
    ) -> Result<(S::Value, Self), Refused> {
        let value = match self.tag {
            Sample::Int(i) => {
                seed.deserialize(u32::try_from(*i).unwrap_or(u32::MAX).into_deserializer())?
            }
            tag => seed.deserialize(SampleDeserializer::<Refused>::new(tag))?,
        };
        self.passage.pass();
        Ok((value, self))
    }
}

impl VariantAccess<'static> for Chosen<'_, '_> {
    type Error = Refused;

    fn unit_variant(self) -> Result<(), Refused> {
        match self.content {
            None | Some(Sample::Nil) => Ok(()),
            Some(_) => Err(de::Error::invalid_type(
                de::Unexpected::Map,
                &"unit variant",
            )),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'static>>(
        self,
        seed: S,
    ) -> Result<S::Value, Refused> {
        seed.deserialize(self.passage)
    }

    fn tuple_variant<V: Visitor<'static>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.passage.fields(positions(len), &[], visitor)
    }

    fn struct_variant<V: Visitor<'static>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        let names = self.passage.names.field_names(fields);
        self.passage.fields(dotted(names), fields, visitor)
    }
}
