//! The generator of serde types whose truth it knows: it plants validating leaves (a value
//! only the generator knows is accepted), opaque leaves (`serde_json::Value`, `IgnoredAny`)
//! and untagged enums at random places of random types, and writes, beside each type, where
//! it planted what: the places the kit must name, the places each planted item makes
//! unseeable (its region), samples covering every variant and leaf, and which of them holds
//! what. Nothing here asks the kit anything.

use std::fmt::Write as _;

pub const DEFAULT_SEED: u64 = 0x4841_5244_5041_434b;
pub const DEFAULT_TYPES: usize = 300;
pub const DEBUG_TYPES: usize = 6;
/// xorshift64*: a small generator, the same numbers for the same seed everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Prim {
    U8,
    U32,
    I64,
    Bool,
    Str,
    F64,
}

impl Prim {
    fn rust(self) -> &'static str {
        match self {
            Prim::U8 => "u8",
            Prim::U32 => "u32",
            Prim::I64 => "i64",
            Prim::Bool => "bool",
            Prim::Str => "String",
            Prim::F64 => "f64",
        }
    }
    fn value(self) -> &'static str {
        match self {
            Prim::U8 => "7u8",
            Prim::U32 => "70_000u32",
            Prim::I64 => "-5i64",
            Prim::Bool => "true",
            Prim::Str => "\"text\".to_string()",
            Prim::F64 => "1.5f64",
        }
    }
    fn random(rng: &mut Rng) -> Prim {
        [
            Prim::U8,
            Prim::U32,
            Prim::I64,
            Prim::Bool,
            Prim::Str,
            Prim::F64,
        ][rng.below(6)]
    }
}

#[derive(Clone)]
enum Ty {
    Prim(Prim),
    /// A planted leaf (an index into `Gen::leaves`).
    Leaf(usize),
    Opt(Box<Ty>),
    Vec(Box<Ty>),
    /// `BTreeMap<K, V>`; a key that is a planted leaf validates.
    Map(Option<usize>, Box<Ty>),
    Tuple(Vec<Ty>),
    Array(Box<Ty>, usize),
    Boxed(Box<Ty>),
    Def(usize),
    /// The generic struct (a def) with its two parameters.
    Generic(usize, Box<Ty>, Box<Ty>),
    /// Recursion back into an enclosing def: `Option<Box<D>>` (true) or `Vec<D>` (false).
    SelfRef(usize, bool),
}

#[derive(Clone, Copy, PartialEq)]
enum LeafKind {
    /// A newtype whose hand-written `Deserialize` accepts one string.
    Validating,
    /// A `String` field with `deserialize_with` accepting one string.
    ValidatingWith,
    /// `serde_json::Value`.
    Json,
    /// `serde::de::IgnoredAny`, a field.
    Ignored,
}

struct Leaf {
    kind: LeafKind,
    secret: String,
    type_name: String,
}

#[derive(Clone)]
struct Field {
    name: String,
    ty: Ty,
    rename: Option<String>,
    alias: Option<String>,
    default: bool,
    skip: bool,
    flatten: bool,
}

impl Field {
    fn serde_name(&self) -> &str {
        self.rename.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Clone)]
enum VarKind {
    Unit,
    Newtype(Ty),
    Tuple(Vec<Ty>),
    Struct(Vec<Field>),
}

#[derive(Clone)]
struct Var {
    name: String,
    kind: VarKind,
}

#[derive(Clone, Copy, PartialEq)]
enum Repr {
    External,
    Internal,
    Adjacent,
    Untagged,
}

#[derive(Clone)]
enum DefKind {
    Struct(Vec<Field>),
    Newtype(Ty),
    Enum(Repr, Vec<Var>),
    /// `struct G<A, B> { a: A, b: B, n: u8 }`.
    Generic,
}

#[derive(Clone)]
struct Def {
    name: String,
    serde_name: String,
    kind: DefKind,
}

/// What the generator planted, and what it knows of it.
struct Planted {
    /// The validating items before it in the regions holding it (each region's first): the
    /// trace cannot get past any of them to see this one.
    hidden_by: Vec<usize>,
    what: &'static str,
    /// Any of these keys names it (its own place, or a variant holding it).
    names: Vec<String>,
    /// The region it sits in (an index into `regions`).
    region: usize,
}

/// The positions a type's generation covered, to count them.
#[derive(Default)]
struct Coverage {
    counts: std::collections::BTreeMap<String, usize>,
}

impl Coverage {
    fn add(&mut self, what: &str) {
        *self.counts.entry(what.to_string()).or_default() += 1;
    }
}

struct Gen<'r> {
    rng: &'r mut Rng,
    prefix: String,
    defs: Vec<Def>,
    leaves: Vec<Leaf>,
    /// How deep the type may still grow.
    budget: usize,
    /// Defs being generated (for recursion).
    open: Vec<usize>,
    /// Inside an internally/adjacently tagged variant or an untagged enum (buffered: no key
    /// of its own in the kit's trace) or a flattened struct.
    coverage: Coverage,
    position: Vec<&'static str>,
    /// Whether the shapes the kit does not yet see through are generated too.
    all_shapes: bool,
}

impl Gen<'_> {
    fn fresh(&mut self, kind: &str) -> String {
        format!(
            "{}{kind}{}",
            self.prefix,
            self.defs.len() + self.leaves.len()
        )
    }

    fn leaf(&mut self, in_field: bool, as_key: bool) -> Ty {
        let kind = if as_key {
            LeafKind::Validating
        } else {
            match self.rng.below(if in_field { 4 } else { 2 }) {
                0 => LeafKind::Validating,
                1 => LeafKind::Json,
                2 => LeafKind::ValidatingWith,
                _ => LeafKind::Ignored,
            }
        };
        let index = self.leaves.len();
        let type_name = self.fresh("K");
        let secret = format!("{:016x}", self.rng.next());
        self.leaves.push(Leaf {
            kind,
            secret,
            type_name,
        });
        let position = self.position.last().copied().unwrap_or("root");
        self.coverage.add(&format!(
            "leaf {} in {position}",
            match kind {
                LeafKind::Validating | LeafKind::ValidatingWith => "validating",
                _ => "opaque",
            }
        ));
        Ty::Leaf(index)
    }

    /// A type for a place; `in_field`: a struct's field (where attributes can go).
    fn ty(&mut self, in_field: bool, plant: bool) -> Ty {
        if self.budget == 0 {
            return Ty::Prim(Prim::random(self.rng));
        }
        self.budget -= 1;
        let roll = self.rng.below(100);
        match roll {
            0..=24 => Ty::Prim(Prim::random(self.rng)),
            25..=31 if plant => self.leaf(in_field, false),
            32..=39 => {
                self.position.push("option");
                let inner = self.ty(false, plant);
                self.position.pop();
                Ty::Opt(Box::new(inner))
            }
            40..=47 => {
                self.position.push("sequence");
                let inner = self.ty(false, plant);
                self.position.pop();
                Ty::Vec(Box::new(inner))
            }
            48..=53 => {
                self.position.push("map value");
                let key = (plant && self.rng.chance(30)).then(|| match self.leaf(false, true) {
                    Ty::Leaf(i) => i,
                    _ => unreachable!(),
                });
                let value = self.ty(false, plant);
                self.position.pop();
                Ty::Map(key, Box::new(value))
            }
            54..=58 => {
                self.position.push("tuple");
                let n = 2 + self.rng.below(2);
                let items = (0..n).map(|_| self.ty(false, plant)).collect();
                self.position.pop();
                Ty::Tuple(items)
            }
            59..=61 => Ty::Array(
                Box::new(Ty::Prim(Prim::random(self.rng))),
                2 + self.rng.below(2),
            ),
            62..=64 => {
                let inner = self.ty(false, plant);
                Ty::Boxed(Box::new(inner))
            }
            65..=67 if !self.open.is_empty() => {
                let target = self.open[self.rng.below(self.open.len())];
                self.coverage.add("recursion");
                Ty::SelfRef(target, self.rng.chance(50))
            }
            68..=71 => {
                self.position.push("generic");
                let a = self.ty(false, plant);
                let b = self.ty(false, plant);
                self.position.pop();
                let def = self.defs.len();
                let name = self.fresh("G");
                self.defs.push(Def {
                    serde_name: name.clone(),
                    name,
                    kind: DefKind::Generic,
                });
                self.coverage.add("generic with two parameters");
                Ty::Generic(def, Box::new(a), Box::new(b))
            }
            72..=79 => self.newtype_or_struct(plant),
            _ => self.enumeration(plant),
        }
    }

    fn fields(&mut self, n: usize, plant: bool, plain: bool) -> Vec<Field> {
        let mut fields = Vec::new();
        // A struct variant's fields are counted apart from a struct's.
        let position = match self.position.last() {
            Some(&"struct variant") => "struct variant field",
            _ => "struct field",
        };
        for i in 0..n {
            self.position.push(position);
            let ty = if plain {
                Ty::Prim(Prim::random(self.rng))
            } else {
                self.ty(true, plant)
            };
            self.position.pop();
            let defaultable = matches!(ty, Ty::Prim(_) | Ty::Opt(_) | Ty::Vec(_) | Ty::Map(..));
            let rename = self.rng.chance(15).then(|| format!("r_f{i}"));
            if rename.is_some() {
                self.coverage.add("rename");
            }
            let default = defaultable && self.rng.chance(15);
            if default {
                self.coverage.add("default");
            }
            fields.push(Field {
                name: format!("f{i}"),
                ty,
                rename,
                alias: None,
                default,
                skip: false,
                flatten: false,
            });
        }
        if !plain && self.rng.chance(10) {
            self.coverage.add("skip");
            fields.push(Field {
                name: format!("f{}", fields.len()),
                ty: Ty::Prim(Prim::random(self.rng)),
                rename: None,
                alias: None,
                default: false,
                skip: true,
                flatten: false,
            });
        }
        // Serde lists a field's aliases with its name, sorted: an alias before the name
        // (`a_f0`, or `f0_alias` beside `r_f0`) comes first, and shifts the names after it.
        for field in fields.iter_mut().filter(|f| !f.skip) {
            if self.rng.chance(12) {
                self.coverage.add("alias");
                field.alias = Some(if self.rng.chance(50) {
                    format!("a_{}", field.name)
                } else {
                    format!("{}_alias", field.name)
                });
            }
        }
        fields
    }

    fn newtype_or_struct(&mut self, plant: bool) -> Ty {
        let def = self.defs.len();
        let newtype = self.rng.chance(25);
        let name = self.fresh(if newtype { "N" } else { "S" });
        self.defs.push(Def {
            name: name.clone(),
            serde_name: name.clone(),
            kind: DefKind::Struct(Vec::new()),
        });
        self.open.push(def);
        let kind = if newtype {
            self.position.push("newtype");
            let inner = self.ty(false, plant);
            self.position.pop();
            DefKind::Newtype(inner)
        } else {
            let n = 1 + self.rng.below(4);
            let mut fields = self.fields(n, plant, false);
            if self.rng.chance(12) {
                // A flattened struct of plain fields; its siblings are plain too.
                self.coverage.add("flatten");
                for f in &mut fields {
                    f.ty = Ty::Prim(Prim::random(self.rng));
                    f.alias = None;
                }
                let inner = self.defs.len();
                let inner_name = self.fresh("S");
                let n = 1 + self.rng.below(2);
                let mut inner_fields = self.fields(n, false, true);
                // Its fields sit beside the parent's in one map: other names.
                for f in &mut inner_fields {
                    f.name = format!("g{}", &f.name[1..]);
                    f.rename = None;
                    f.alias = None;
                }
                self.defs.push(Def {
                    name: inner_name.clone(),
                    serde_name: inner_name,
                    kind: DefKind::Struct(inner_fields),
                });
                fields.push(Field {
                    name: format!("f{}", fields.len()),
                    ty: Ty::Def(inner),
                    rename: None,
                    alias: None,
                    default: false,
                    skip: false,
                    flatten: true,
                });
            }
            DefKind::Struct(fields)
        };
        self.open.pop();
        let serde_name = if self.rng.chance(10) {
            self.coverage.add("rename");
            format!("{name}_renamed")
        } else {
            name.clone()
        };
        self.defs[def] = Def {
            name,
            serde_name,
            kind,
        };
        Ty::Def(def)
    }

    /// A newtype or tuple variant's item. Plain in a tagged variant's content (a primitive,
    /// at times a planted leaf), unless every shape is asked for.
    fn content_ty(&mut self, plain: bool, plant: bool) -> Ty {
        if !plain {
            return self.ty(false, plant);
        }
        if plant && self.rng.chance(30) {
            self.leaf(false, false)
        } else {
            Ty::Prim(Prim::random(self.rng))
        }
    }

    fn enumeration(&mut self, plant: bool) -> Ty {
        let def = self.defs.len();
        let name = self.fresh("E");
        self.defs.push(Def {
            name: name.clone(),
            serde_name: name.clone(),
            kind: DefKind::Enum(Repr::External, Vec::new()),
        });
        let repr = match self.rng.below(10) {
            0..=4 => Repr::External,
            5..=6 => Repr::Internal,
            7..=8 => Repr::Adjacent,
            _ => Repr::Untagged,
        };
        self.coverage.add(match repr {
            Repr::External => "enum externally tagged",
            Repr::Internal => "enum internally tagged",
            Repr::Adjacent => "enum adjacently tagged",
            Repr::Untagged => "enum untagged",
        });
        let position = self.position.last().copied().unwrap_or("root");
        self.coverage.add(&format!("enum in {position}"));
        // Recursion only through externally tagged enums and structs: serde's buffering reads
        // the others whole.
        let recursive = repr == Repr::External;
        if recursive {
            self.open.push(def);
        }
        let saved_open = (!recursive).then(|| std::mem::take(&mut self.open));
        // Planted leaves inside an untagged enum would be seen only as the enum: the enum
        // itself is what the generator plants there.
        let plant_inside = plant && repr != Repr::Untagged;
        // Inside a tagged variant's content (read through serde's buffering) the kit does not
        // yet build every variant of an enum nested there: plain values and planted leaves,
        // unless every shape is asked for.
        let plain_content = matches!(repr, Repr::Internal | Repr::Adjacent) && !self.all_shapes;
        let n = 2 + self.rng.below(3);
        let mut variants = Vec::new();
        for v in 0..n {
            let vname = format!("{name}V{v}");
            // The first variant ends, with nothing planted: the smallest document takes it.
            let kind = if v == 0 {
                VarKind::Unit
            } else {
                let choice = self.rng.below(4);
                match (repr, choice) {
                    (_, 0) => VarKind::Unit,
                    (Repr::Internal, 1) | (Repr::Internal, 2) | (_, 3) => {
                        self.position.push("struct variant");
                        let n = 1 + self.rng.below(3);
                        let mut fields = self.fields(n, plant_inside, plain_content);
                        if plain_content && plant_inside && self.rng.chance(30) {
                            let leaf = self.leaf(false, false);
                            if let Some(f) = fields.first_mut() {
                                f.ty = leaf;
                            }
                        }
                        self.position.pop();
                        VarKind::Struct(
                            fields
                                .into_iter()
                                .map(|mut f| {
                                    f.flatten = false;
                                    f.skip = false;
                                    f.default = false;
                                    // Inside serde's buffering a field has no place of
                                    // its own to name.
                                    if repr != Repr::External {
                                        f.alias = None;
                                    }
                                    f
                                })
                                .collect(),
                        )
                    }
                    (_, 1) => {
                        self.position.push("newtype variant");
                        let inner = self.content_ty(plain_content, plant_inside);
                        self.position.pop();
                        VarKind::Newtype(inner)
                    }
                    _ => {
                        self.position.push("tuple variant");
                        let items = (0..2)
                            .map(|_| self.content_ty(plain_content, plant_inside))
                            .collect();
                        self.position.pop();
                        VarKind::Tuple(items)
                    }
                }
            };
            variants.push(Var { name: vname, kind });
        }
        if repr == Repr::Untagged {
            // Plain values first, so the untagged enum's forms differ; a catch-all at times.
            variants[0].kind = VarKind::Newtype(Ty::Prim(Prim::Bool));
            if self.rng.chance(40) {
                self.coverage.add("untagged catch-all");
                variants.push(Var {
                    name: format!("{name}Other"),
                    kind: VarKind::Newtype(Ty::Leaf({
                        let i = self.leaves.len();
                        let type_name = self.fresh("K");
                        self.leaves.push(Leaf {
                            kind: LeafKind::Json,
                            secret: String::new(),
                            type_name,
                        });
                        i
                    })),
                });
            }
        }
        if let Some(open) = saved_open {
            self.open = open;
        }
        if recursive {
            self.open.pop();
        }
        self.defs[def].kind = DefKind::Enum(repr, variants);
        Ty::Def(def)
    }
}

/// The route to a place: its key, the regions it sits in, and the variants holding it.
#[derive(Clone, Default)]
struct Route {
    regions: Vec<usize>,
    variants: Vec<String>,
    /// The key of the buffered place it is inside (a tagged variant, an untagged enum, a
    /// flattened struct), if any: nothing inside has a key of its own.
    buffered: Option<String>,
    /// Whether that buffered place is a tagged variant's content.
    in_tagged_content: bool,
    /// The enum choices that lead here: (def, variant).
    choices: Vec<(usize, usize)>,
}

struct Truth {
    /// Each region's keys.
    regions: Vec<Vec<String>>,
    planted: Vec<Planted>,
    /// The planted item each leaf is (by leaf index), and each untagged enum (by def).
    leaf_planted: std::collections::BTreeMap<usize, usize>,
    enum_planted: std::collections::BTreeMap<usize, usize>,
    /// Each variant (def, index): its key, its region, the route to it.
    variants: Vec<((usize, usize), String, usize, Route)>,
    /// The route to each planted item.
    planted_routes: Vec<Route>,
    /// Each variant of a tagged enum inside a tagged variant's content (def, index) and the
    /// route to it: no place of its own, but the variant holding it is built whole only by
    /// values taking each of them (see docs/harden-your-types.md), so a sample holds it.
    buffered_variants: Vec<((usize, usize), Route)>,
    /// The regions a validating item was planted in, by its index: what follows it there is
    /// behind it.
    blocked: std::collections::BTreeMap<usize, usize>,
}

impl Truth {
    /// Plants `what` on `route`: its index.
    fn plant(&mut self, what: &'static str, names: Vec<String>, route: &Route) -> usize {
        let index = self.planted.len();
        let hidden_by = route
            .regions
            .iter()
            .filter_map(|r| self.blocked.get(r).copied())
            .collect();
        self.planted.push(Planted {
            hidden_by,
            what,
            names,
            region: *route.regions.last().unwrap_or(&0),
        });
        self.planted_routes.push(route.clone());
        if what == "validating" {
            self.blocked
                .entry(*route.regions.last().unwrap_or(&0))
                .or_insert(index);
        }
        index
    }
}

fn join(key: &str, suffix: &str) -> String {
    format!("{key}{suffix}")
}

impl Gen<'_> {
    /// Walks the type from `ty` at the key `scope`+`rel`, recording keys into the regions of
    /// the route and what was planted where.
    fn walk(&self, ty: &Ty, scope: &str, rel: &str, route: &Route, truth: &mut Truth) {
        let key = join(scope, rel);
        if route.buffered.is_none() {
            for r in &route.regions {
                truth.regions[*r].push(key.clone());
            }
        }
        // Inside serde's buffering nothing has a key: the region stays the buffered place's.
        let optional = |truth: &mut Truth, suffix: &str| -> (Route, String) {
            let mut inner = route.clone();
            if route.buffered.is_none() {
                let region = truth.regions.len();
                truth.regions.push(Vec::new());
                inner.regions.push(region);
            }
            (inner, join(rel, suffix))
        };
        match ty {
            Ty::Prim(_) => {}
            Ty::Leaf(i) => {
                let what = match self.leaves[*i].kind {
                    LeafKind::Validating | LeafKind::ValidatingWith => "validating",
                    LeafKind::Json | LeafKind::Ignored => "opaque",
                };
                let mut names = route.variants.clone();
                names.push(route.buffered.clone().unwrap_or_else(|| key.clone()));
                let region = *route.regions.last().unwrap_or(&0);
                if route.buffered.is_some() && what == "opaque" {
                    // Inside serde's buffering an opaque leaf is a value like any other.
                    return;
                }
                let _ = region;
                let at = truth.plant(what, names, route);
                truth.leaf_planted.insert(*i, at);
            }
            Ty::Opt(inner) => {
                let (r, rel) = optional(truth, "?");
                self.walk(inner, scope, &rel, &r, truth);
            }
            Ty::Vec(inner) => {
                let (r, rel) = optional(truth, "[]");
                self.walk(inner, scope, &rel, &r, truth);
            }
            Ty::Map(key_leaf, value) => {
                let (r, _) = optional(truth, "");
                let key_rel = join(rel, "{key}");
                if route.buffered.is_none() {
                    for region in &r.regions {
                        truth.regions[*region].push(join(scope, &key_rel));
                    }
                }
                if let Some(k) = key_leaf {
                    self.walk(&Ty::Leaf(*k), scope, &key_rel, &r, truth);
                    // walk pushed the key again; harmless.
                }
                self.walk(value, scope, &join(rel, "{}"), &r, truth);
            }
            Ty::Tuple(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.walk(item, scope, &join(rel, &format!(".{i}")), route, truth);
                }
            }
            Ty::Array(inner, n) => {
                for i in 0..*n {
                    self.walk(inner, scope, &join(rel, &format!(".{i}")), route, truth);
                }
            }
            Ty::Boxed(inner) => self.walk(inner, scope, rel, route, truth),
            // Its content is the def it recurses into, walked where it was defined; the
            // option's or sequence's inside is a place of its own.
            Ty::SelfRef(_, boxed) => {
                let inside = join(&key, if *boxed { "?" } else { "[]" });
                if route.buffered.is_none() {
                    for r in &route.regions {
                        truth.regions[*r].push(inside.clone());
                    }
                }
            }
            Ty::Generic(def, a, b) => {
                let name = &self.defs[*def].serde_name;
                self.walk(a, name, ".a", route, truth);
                self.walk(b, name, ".b", route, truth);
                self.walk(&Ty::Prim(Prim::U8), name, ".n", route, truth);
            }
            Ty::Def(def) => self.walk_def(*def, &key, route, truth),
        }
    }

    fn walk_def(&self, def: usize, key: &str, route: &Route, truth: &mut Truth) {
        let d = &self.defs[def];
        let name = d.serde_name.as_str();
        match &d.kind {
            DefKind::Generic => {}
            DefKind::Newtype(inner) => self.walk(inner, name, ".0", route, truth),
            DefKind::Struct(fields) => {
                let flattened = fields.iter().any(|f| f.flatten);
                let mut inner_route = route.clone();
                if flattened && inner_route.buffered.is_none() {
                    // serde reads it as a map at its place: a key and a value of its own.
                    for suffix in ["{key}", "{}"] {
                        for r in &route.regions {
                            truth.regions[*r].push(join(key, suffix));
                        }
                    }
                    inner_route.buffered = Some(key.to_string());
                }
                for f in fields.iter().filter(|f| !f.skip) {
                    self.walk(
                        &f.ty,
                        name,
                        &format!(".{}", f.serde_name()),
                        &inner_route,
                        truth,
                    );
                }
            }
            DefKind::Enum(repr, variants) => {
                // Inside a tagged variant's content the untagged enum is that variant's, where
                // a plain value cannot build it (a variant holding more than one) and no
                // catch-all takes every value (an opaque value there is one like any other).
                let beyond_plain_values = variants.iter().any(|v| match &v.kind {
                    VarKind::Unit | VarKind::Newtype(Ty::Prim(_)) => false,
                    VarKind::Newtype(Ty::Leaf(i)) => {
                        !matches!(self.leaves[*i].kind, LeafKind::Json | LeafKind::Ignored)
                    }
                    _ => true,
                });
                let catch_all = variants.iter().any(|v| {
                    matches!(&v.kind, VarKind::Newtype(Ty::Leaf(i))
                        if matches!(self.leaves[*i].kind, LeafKind::Json | LeafKind::Ignored))
                });
                if *repr == Repr::Untagged
                    && (route.buffered.is_none()
                        || (route.in_tagged_content && beyond_plain_values && !catch_all))
                {
                    let mut names = route.variants.clone();
                    names.push(route.buffered.clone().unwrap_or_else(|| key.to_string()));
                    let at = truth.plant("untagged", names, route);
                    truth.enum_planted.insert(def, at);
                }
                for (v, var) in variants.iter().enumerate() {
                    // An externally or adjacently tagged enum's variants are keyed by its
                    // name; an internally tagged one has no name serde gives: by its place.
                    let (vkey, scope) = match repr {
                        Repr::External | Repr::Adjacent => {
                            (format!("{name}::{}", var.name), name.to_string())
                        }
                        _ => (format!("{key}::{}", var.name), String::new()),
                    };
                    let mut inner = route.clone();
                    let shows_variant = route.buffered.is_none() && *repr != Repr::Untagged;
                    let region = if shows_variant {
                        truth.regions.push(Vec::new());
                        inner.regions.push(truth.regions.len() - 1);
                        truth.regions.len() - 1
                    } else {
                        *route.regions.last().unwrap_or(&0)
                    };
                    inner.choices.push((def, v));
                    if shows_variant {
                        inner.variants.push(vkey.clone());
                        for r in &inner.regions {
                            truth.regions[*r].push(vkey.clone());
                        }
                        truth
                            .variants
                            .push(((def, v), vkey.clone(), region, inner.clone()));
                    } else if route.in_tagged_content && *repr != Repr::Untagged {
                        truth.buffered_variants.push(((def, v), inner.clone()));
                    }
                    if *repr != Repr::External && inner.buffered.is_none() {
                        inner.buffered = Some(if *repr == Repr::Untagged {
                            key.to_string()
                        } else {
                            vkey.clone()
                        });
                        inner.in_tagged_content = *repr != Repr::Untagged;
                    }
                    let vrel = format!("::{}", var.name);
                    match &var.kind {
                        VarKind::Unit => {}
                        VarKind::Newtype(ty) => {
                            self.walk(ty, &scope_or(&scope, name), &vrel, &inner, truth)
                        }
                        VarKind::Tuple(items) => {
                            for (i, item) in items.iter().enumerate() {
                                self.walk(
                                    item,
                                    &scope_or(&scope, name),
                                    &format!("{vrel}.{i}"),
                                    &inner,
                                    truth,
                                );
                            }
                        }
                        VarKind::Struct(fields) => {
                            for f in fields {
                                self.walk(
                                    &f.ty,
                                    &scope_or(&scope, name),
                                    &format!("{vrel}.{}", f.serde_name()),
                                    &inner,
                                    truth,
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

fn scope_or(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        scope.to_string()
    }
}

/// Rust source.
impl Gen<'_> {
    fn rust_ty(&self, ty: &Ty) -> String {
        match ty {
            Ty::Prim(p) => p.rust().into(),
            Ty::Leaf(i) => match self.leaves[*i].kind {
                LeafKind::Validating => self.leaves[*i].type_name.clone(),
                LeafKind::ValidatingWith => "String".into(),
                LeafKind::Json => "serde_json::Value".into(),
                LeafKind::Ignored => "serde::de::IgnoredAny".into(),
            },
            Ty::Opt(inner) => format!("Option<{}>", self.rust_ty(inner)),
            Ty::Vec(inner) => format!("Vec<{}>", self.rust_ty(inner)),
            Ty::Map(key, value) => format!(
                "std::collections::BTreeMap<{}, {}>",
                key.map_or("String".to_string(), |k| self.leaves[k].type_name.clone()),
                self.rust_ty(value)
            ),
            Ty::Tuple(items) => format!(
                "({},)",
                items
                    .iter()
                    .map(|t| self.rust_ty(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Ty::Array(inner, n) => format!("[{}; {n}]", self.rust_ty(inner)),
            Ty::Boxed(inner) => format!("Box<{}>", self.rust_ty(inner)),
            Ty::Def(d) => self.defs[*d].name.clone(),
            Ty::Generic(d, a, b) => format!(
                "{}<{}, {}>",
                self.defs[*d].name,
                self.rust_ty(a),
                self.rust_ty(b)
            ),
            Ty::SelfRef(d, true) => format!("Option<Box<{}>>", self.defs[*d].name),
            Ty::SelfRef(d, false) => format!("Vec<{}>", self.defs[*d].name),
        }
    }

    fn field_attrs(&self, f: &Field) -> String {
        let mut attrs = Vec::new();
        if let Some(r) = &f.rename {
            attrs.push(format!("rename = \"{r}\""));
        }
        if let Some(a) = &f.alias {
            attrs.push(format!("alias = \"{a}\""));
        }
        if f.default {
            attrs.push("default".into());
        }
        if f.skip {
            attrs.push("skip".into());
        }
        if f.flatten {
            attrs.push("flatten".into());
        }
        if let Ty::Leaf(i) = &f.ty {
            let leaf = &self.leaves[*i];
            match leaf.kind {
                LeafKind::ValidatingWith => {
                    attrs.push(format!("deserialize_with = \"{}_with\"", leaf.type_name))
                }
                LeafKind::Ignored => attrs.push("serialize_with = \"ser_ignored\"".into()),
                _ => {}
            }
        }
        if attrs.is_empty() {
            String::new()
        } else {
            format!("#[serde({})] ", attrs.join(", "))
        }
    }

    fn fields_src(&self, fields: &[Field], public: bool) -> String {
        fields
            .iter()
            .map(|f| {
                format!(
                    "{}{}{}: {}",
                    self.field_attrs(f),
                    if public { "pub " } else { "" },
                    f.name,
                    self.rust_ty(&f.ty)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn defs_src(&self, out: &mut String) {
        for leaf in &self.leaves {
            let n = &leaf.type_name;
            let s = &leaf.secret;
            match leaf.kind {
                LeafKind::Validating => {
                    let _ = writeln!(
                        out,
                        "#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)] pub struct {n}(pub String);\n\
                         impl<'de> Deserialize<'de> for {n} {{ fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {{ \
                         let s = String::deserialize(d)?; if s == \"{s}\" {{ Ok({n}(s)) }} else {{ Err(serde::de::Error::custom(\"not the secret\")) }} }} }}"
                    );
                }
                LeafKind::ValidatingWith => {
                    let _ = writeln!(
                        out,
                        "#[allow(non_snake_case)] fn {n}_with<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {{ \
                         let s = String::deserialize(d)?; if s == \"{s}\" {{ Ok(s) }} else {{ Err(serde::de::Error::custom(\"not the secret\")) }} }}"
                    );
                }
                _ => {}
            }
        }
        for d in &self.defs {
            let rename = if d.serde_name != d.name {
                format!("#[serde(rename = \"{}\")] ", d.serde_name)
            } else {
                String::new()
            };
            let derive = "#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)]";
            match &d.kind {
                DefKind::Struct(fields) => {
                    let _ = writeln!(
                        out,
                        "{derive} {rename}pub struct {} {{ {} }}",
                        d.name,
                        self.fields_src(fields, true)
                    );
                }
                DefKind::Newtype(inner) => {
                    let _ = writeln!(
                        out,
                        "{derive} {rename}pub struct {}(pub {});",
                        d.name,
                        self.rust_ty(inner)
                    );
                }
                DefKind::Generic => {
                    let _ = writeln!(
                        out,
                        "{derive} pub struct {}<A, B> {{ pub a: A, pub b: B, pub n: u8 }}",
                        d.name
                    );
                }
                DefKind::Enum(repr, variants) => {
                    let repr_attr = match repr {
                        Repr::External => String::new(),
                        Repr::Internal => "#[serde(tag = \"t\")] ".into(),
                        Repr::Adjacent => "#[serde(tag = \"t\", content = \"c\")] ".into(),
                        Repr::Untagged => "#[serde(untagged)] ".into(),
                    };
                    let vs: Vec<String> = variants
                        .iter()
                        .map(|v| match &v.kind {
                            VarKind::Unit => v.name.clone(),
                            VarKind::Newtype(t) => format!("{}({})", v.name, self.rust_ty(t)),
                            VarKind::Tuple(ts) => format!(
                                "{}({})",
                                v.name,
                                ts.iter()
                                    .map(|t| self.rust_ty(t))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            VarKind::Struct(fs) => {
                                format!("{} {{ {} }}", v.name, self.fields_src(fs, false))
                            }
                        })
                        .collect();
                    let _ = writeln!(
                        out,
                        "{derive} {repr_attr}pub enum {} {{ {} }}",
                        d.name,
                        vs.join(", ")
                    );
                }
            }
        }
    }

    /// A value of `ty` as a Rust expression, taking `choices` at each enum (else its first
    /// variant); what it holds is added to `holds` (planted leaves, untagged enums, variants).
    fn value(
        &self,
        ty: &Ty,
        choices: &[(usize, usize)],
        holds: &mut Holds,
        depth: usize,
    ) -> String {
        match ty {
            Ty::Prim(p) => p.value().into(),
            Ty::Leaf(i) => {
                holds.leaves.push(*i);
                let leaf = &self.leaves[*i];
                match leaf.kind {
                    LeafKind::Validating => {
                        format!("{}(\"{}\".to_string())", leaf.type_name, leaf.secret)
                    }
                    LeafKind::ValidatingWith => format!("\"{}\".to_string()", leaf.secret),
                    LeafKind::Json => "serde_json::json!({\"k\": [1, \"v\"]})".into(),
                    LeafKind::Ignored => "serde::de::IgnoredAny".into(),
                }
            }
            Ty::Opt(inner) => format!("Some({})", self.value(inner, choices, holds, depth)),
            Ty::Vec(inner) => format!("vec![{}]", self.value(inner, choices, holds, depth)),
            Ty::Map(key, value) => {
                let k = match key {
                    Some(k) => {
                        holds.leaves.push(*k);
                        let leaf = &self.leaves[*k];
                        format!("{}(\"{}\".to_string())", leaf.type_name, leaf.secret)
                    }
                    None => "\"key\".to_string()".into(),
                };
                format!(
                    "std::collections::BTreeMap::from([({k}, {})])",
                    self.value(value, choices, holds, depth)
                )
            }
            Ty::Tuple(items) => format!(
                "({},)",
                items
                    .iter()
                    .map(|t| self.value(t, choices, holds, depth))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Ty::Array(inner, n) => format!(
                "[{}]",
                (0..*n)
                    .map(|_| self.value(inner, choices, holds, depth))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Ty::Boxed(inner) => format!("Box::new({})", self.value(inner, choices, holds, depth)),
            Ty::SelfRef(_, true) => "None".into(),
            Ty::SelfRef(_, false) => "Vec::new()".into(),
            Ty::Generic(d, a, b) => format!(
                "{} {{ a: {}, b: {}, n: 3 }}",
                self.defs[*d].name,
                self.value(a, choices, holds, depth),
                self.value(b, choices, holds, depth)
            ),
            Ty::Def(d) => self.def_value(*d, choices, holds, depth),
        }
    }

    fn fields_value(
        &self,
        fields: &[Field],
        choices: &[(usize, usize)],
        holds: &mut Holds,
        depth: usize,
    ) -> String {
        fields
            .iter()
            .map(|f| {
                if f.skip {
                    format!("{}: Default::default()", f.name)
                } else {
                    format!("{}: {}", f.name, self.value(&f.ty, choices, holds, depth))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn def_value(
        &self,
        def: usize,
        choices: &[(usize, usize)],
        holds: &mut Holds,
        depth: usize,
    ) -> String {
        let d = &self.defs[def];
        match &d.kind {
            DefKind::Struct(fields) => format!(
                "{} {{ {} }}",
                d.name,
                self.fields_value(fields, choices, holds, depth + 1)
            ),
            DefKind::Newtype(inner) => {
                format!(
                    "{}({})",
                    d.name,
                    self.value(inner, choices, holds, depth + 1)
                )
            }
            DefKind::Generic => unreachable!("a generic is a Ty::Generic"),
            DefKind::Enum(repr, variants) => {
                if *repr == Repr::Untagged {
                    holds.untagged.push(def);
                }
                let v = choices
                    .iter()
                    .find(|(d, _)| *d == def)
                    .map_or(0, |(_, v)| *v);
                holds.variants.push((def, v));
                let var = &variants[v];
                let path = format!("{}::{}", d.name, var.name);
                match &var.kind {
                    VarKind::Unit => path,
                    VarKind::Newtype(t) => {
                        format!("{path}({})", self.value(t, choices, holds, depth + 1))
                    }
                    VarKind::Tuple(ts) => format!(
                        "{path}({})",
                        ts.iter()
                            .map(|t| self.value(t, choices, holds, depth + 1))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    VarKind::Struct(fs) => format!(
                        "{path} {{ {} }}",
                        self.fields_value(fs, choices, holds, depth + 1)
                    ),
                }
            }
        }
    }
}

#[derive(Default)]
struct Holds {
    leaves: Vec<usize>,
    untagged: Vec<usize>,
    variants: Vec<(usize, usize)>,
}

fn str_list(items: &[String]) -> String {
    format!(
        "&[{}]",
        items
            .iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The generated source: each type in a module, its truth, its samples, and four tests.
pub fn generate(seed: u64, count: usize, all_shapes: bool) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::new();
    let mut coverage = Coverage::default();
    let _ = writeln!(
        out,
        "// Generated by check/proof/gen.rs from the seed {seed}."
    );
    let _ = writeln!(out, "pub const SEED: u64 = {seed};");
    let _ = writeln!(out, "pub const TYPES: usize = {count};");
    for index in 0..count {
        emit_type(
            &mut rng,
            seed,
            index,
            all_shapes,
            &format!("t{index:03}"),
            &mut out,
            &mut coverage,
        );
    }
    let _ = writeln!(
        out,
        "/// What the generator covered: shapes and positions, with counts."
    );
    let _ = writeln!(
        out,
        "pub const COVERAGE: &[(&str, usize)] = &[{}];",
        coverage
            .counts
            .iter()
            .map(|(k, v)| format!("({k:?}, {v})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}

/// Writes the type `index` of `seed`'s sequence (drawing from `rng`, which must have drawn
/// the types before it) as module `module`, with its samples, its truth and its four tests.
fn emit_type(
    rng: &mut Rng,
    seed: u64,
    index: usize,
    all_shapes: bool,
    module: &str,
    out: &mut String,
    coverage: &mut Coverage,
) {
    let mut gen = Gen {
        rng,
        prefix: format!("T{index}"),
        defs: Vec::new(),
        leaves: Vec::new(),
        budget: 6 + index % 10,
        open: Vec::new(),
        coverage: Coverage::default(),
        position: Vec::new(),
        all_shapes,
    };
    // A third of the types have nothing planted: their truth is "hardened".
    let plant = index % 3 != 0;
    let root = match index % 4 {
        0 | 1 => gen.newtype_or_struct(plant),
        _ => gen.enumeration(plant),
    };
    let mut truth = Truth {
        regions: vec![Vec::new()],
        planted: Vec::new(),
        leaf_planted: Default::default(),
        enum_planted: Default::default(),
        variants: Vec::new(),
        planted_routes: Vec::new(),
        buffered_variants: Vec::new(),
        blocked: Default::default(),
    };
    let root_route = Route {
        regions: vec![0],
        ..Route::default()
    };
    gen.walk(&root, "", "", &root_route, &mut truth);

    // Samples: each variant and each planted item held by one at least.
    let mut samples: Vec<(String, Holds)> = Vec::new();
    let mut targets: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
    targets.extend(
        truth
            .variants
            .iter()
            .map(|(_, _, _, route)| route.choices.clone()),
    );
    targets.extend(truth.planted_routes.iter().map(|r| r.choices.clone()));
    targets.extend(
        truth
            .buffered_variants
            .iter()
            .map(|(_, route)| route.choices.clone()),
    );
    let mut covered_variants = std::collections::BTreeSet::new();
    let mut covered_planted = std::collections::BTreeSet::new();
    for (t, choices) in targets.iter().enumerate() {
        let target_variant = t
            .checked_sub(1)
            .and_then(|t| truth.variants.get(t))
            .map(|v| v.0);
        let target_planted = t
            .checked_sub(1 + truth.variants.len())
            .filter(|p| *p < truth.planted.len());
        let target_buffered = t
            .checked_sub(1 + truth.variants.len() + truth.planted.len())
            .and_then(|b| truth.buffered_variants.get(b))
            .map(|b| b.0);
        if t > 0 && target_variant.is_some_and(|v| covered_variants.contains(&v))
            || target_planted.is_some_and(|p| covered_planted.contains(&p))
            || target_buffered.is_some_and(|v| covered_variants.contains(&v))
        {
            continue;
        }
        let mut holds = Holds::default();
        let value = gen.value(&root, choices, &mut holds, 0);
        for v in &holds.variants {
            covered_variants.insert(*v);
        }
        for l in &holds.leaves {
            if let Some(p) = truth.leaf_planted.get(l) {
                covered_planted.insert(*p);
            }
        }
        for e in &holds.untagged {
            if let Some(p) = truth.enum_planted.get(e) {
                covered_planted.insert(*p);
            }
        }
        samples.push((value, holds));
    }
    // Which planted items each sample holds.
    let holds_planted: Vec<Vec<usize>> = samples
        .iter()
        .map(|(_, holds)| {
            let mut p: Vec<usize> = holds
                .leaves
                .iter()
                .filter_map(|l| truth.leaf_planted.get(l).copied())
                .chain(
                    holds
                        .untagged
                        .iter()
                        .filter_map(|e| truth.enum_planted.get(e).copied()),
                )
                .collect();
            p.sort();
            p.dedup();
            p
        })
        .collect();
    // A random nonempty subset for the third oracle.
    let mut subset: Vec<usize> = (0..samples.len()).filter(|_| gen.rng.chance(50)).collect();
    if subset.is_empty() {
        subset.push(gen.rng.below(samples.len()));
    }
    // A variant the fourth oracle's decoder refuses: not a first variant (the smallest
    // documents take those), not inside serde's buffering, held by a sample.
    let refusable: Vec<&((usize, usize), String, usize, Route)> = truth
        .variants
        .iter()
        .filter(|((_, v), _, _, _)| *v > 0)
        .filter(|(dv, _, _, _)| samples.iter().any(|(_, h)| h.variants.contains(dv)))
        .collect();
    let refused = (!refusable.is_empty()).then(|| refusable[gen.rng.below(refusable.len())]);

    for (k, v) in &gen.coverage.counts {
        *coverage.counts.entry(k.clone()).or_default() += v;
    }
    let _ = writeln!(out, "pub mod {module} {{\n#![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]\nuse serde::{{Deserialize, Serialize}};\nuse super::ser_ignored;\nuse hardpack_check_proof::{{Planted, RefusedVariant, Truth}};");
    gen.defs_src(out);
    let _ = writeln!(out, "pub type Root = {};", gen.rust_ty(&root));
    let _ = writeln!(
        out,
        "pub fn samples() -> Vec<Root> {{ vec![{}] }}",
        samples
            .iter()
            .map(|(v, _)| v.clone())
            .collect::<Vec<_>>()
            .join(",\n")
    );
    let planted: Vec<String> = truth
        .planted
        .iter()
        .map(|p| {
            format!(
                "Planted {{ hidden_by: &{:?}, what: {:?}, names: {}, region: {} }}",
                p.hidden_by,
                p.what,
                str_list(&p.names),
                str_list(&truth.regions[p.region])
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "pub const TRUTH: Truth = Truth {{ index: {index}, planted: &[{}], holds: &[{}], subset: &[{}], refused_variant: {} }};",
        planted.join(", "),
        holds_planted
            .iter()
            .map(|h| format!("&[{}]", h.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")))
            .collect::<Vec<_>>()
            .join(", "),
        subset.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "),
        match refused {
            Some(((def, v), key, region, _)) => {
                let name = match &gen.defs[*def].kind {
                    DefKind::Enum(_, vars) => vars[*v].name.clone(),
                    _ => unreachable!(),
                };
                format!(
                    "Some(RefusedVariant {{ name: {name:?}, key: {key:?}, region: {} }})",
                    str_list(&truth.regions[*region])
                )
            }
            None => "None".into(),
        }
    );
    let _ = writeln!(out, "}}");
    let _ = writeln!(out, "#[test] fn {module}_a_no_samples() {{ no_samples::<{module}::Root>({seed}, &{module}::TRUTH) }}");
    let _ = writeln!(out, "#[test] fn {module}_b_every_sample() {{ every_sample::<{module}::Root>({seed}, &{module}::TRUTH, {module}::samples()) }}");
    let _ = writeln!(out, "#[test] fn {module}_c_some_samples() {{ some_samples::<{module}::Root>({seed}, &{module}::TRUTH, {module}::samples()) }}");
    if refused.is_some() {
        let _ = writeln!(out, "#[test] fn {module}_d_refused_variant() {{ refused_variant::<{module}::Root>({seed}, &{module}::TRUTH, {module}::samples()) }}");
    }
}
