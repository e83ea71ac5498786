//! The four datasets of rust_serialization_benchmark (djkoloski), the table most Rust users
//! choose a serialization crate from: the same types, sizes and value distributions, generated
//! here from a fixed seed (the benchmark's own generators use `rand`; these draw from a small
//! PCG of their own, so the values differ and their shapes and widths do not).
//!
//! - `log`: 10,000 HTTP log lines (an address of four `u8`, four short strs, a `u16`, a `u64`);
//! - `mesh`: 125,000 triangles of four `f32` vectors;
//! - `minecraft_savedata`: 500 player saves (unit enums, options, nested structs, tuples,
//!   arrays, short strs);
//! - `mk48`: 1,000 game updates (small integers, bools, `Vec<u16>`, `Vec<u8>`, tuples).
//!
//! Each type derives serde's, msgpacker's and hardpack's traits; `log` and `minecraft_savedata`
//! have borrowed twins whose strs point into the input.

#![allow(dead_code)]

use serde::{Deserialize, Serialize};

/// PCG-XSH-RR 64/32: small, fast and the same on every machine.
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng { state: 0 };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A value in `lo..hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64) as i64
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    pub fn bool(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// A value in `[0, 1)`, as `rand`'s `gen::<f32>()`.
    pub fn f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// A value in `[0, 1)`, as `rand`'s `gen::<f64>()`.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn f32_range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + self.f32() * (hi - lo)
    }

    pub fn option<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Option<T> {
        self.bool(0.5).then(|| value(self))
    }

    pub fn vec<T>(&mut self, lo: usize, hi: usize, mut item: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let len = lo + self.index(hi - lo);
        (0..len).map(|_| item(self)).collect()
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.index(from.len())]
    }
}

/// The seed every dataset is generated from.
pub const SEED: u64 = 3141592653;

pub mod log {
    use super::*;

    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Address {
        pub x0: u8,
        pub x1: u8,
        pub x2: u8,
        pub x3: u8,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Log {
        pub address: Address,
        pub identity: String,
        pub userid: String,
        pub date: String,
        pub request: String,
        pub code: u16,
        pub size: u64,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowLog<'a> {
        pub address: Address,
        pub identity: &'a str,
        pub userid: &'a str,
        pub date: &'a str,
        pub request: &'a str,
        pub code: u16,
        pub size: u64,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Logs {
        pub logs: Vec<Log>,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowLogs<'a> {
        #[serde(borrow)]
        pub logs: Vec<BorrowLog<'a>>,
    }

    impl<'a> From<&'a Log> for BorrowLog<'a> {
        fn from(log: &'a Log) -> Self {
            BorrowLog {
                address: log.address,
                identity: &log.identity,
                userid: &log.userid,
                date: &log.date,
                request: &log.request,
                code: log.code,
                size: log.size,
            }
        }
    }

    impl<'a> From<&'a Logs> for BorrowLogs<'a> {
        fn from(logs: &'a Logs) -> Self {
            BorrowLogs {
                logs: logs.logs.iter().map(Into::into).collect(),
            }
        }
    }

    const USERID: [&str; 9] = [
        "-", "alice", "bob", "carmen", "david", "eric", "frank", "george", "harry",
    ];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    const TIMEZONE: [&str; 25] = [
        "-1200", "-1100", "-1000", "-0900", "-0800", "-0700", "-0600", "-0500", "-0400", "-0300",
        "-0200", "-0100", "+0000", "+0100", "+0200", "+0300", "+0400", "+0500", "+0600", "+0700",
        "+0800", "+0900", "+1000", "+1100", "+1200",
    ];
    const CODES: [u16; 63] = [
        100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303,
        304, 305, 306, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412,
        413, 414, 415, 416, 417, 418, 421, 422, 423, 424, 425, 426, 428, 429, 431, 451, 500, 501,
        502, 503, 504, 505, 506, 507, 508, 510, 511,
    ];
    const METHODS: [&str; 5] = ["GET", "POST", "PUT", "UPDATE", "DELETE"];
    const ROUTES: [&str; 7] = [
        "/favicon.ico",
        "/css/index.css",
        "/css/font-awsome.min.css",
        "/img/logo-full.svg",
        "/img/splash.jpg",
        "/api/login",
        "/api/logout",
    ];
    const PROTOCOLS: [&str; 4] = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3"];

    fn log(rng: &mut Rng) -> Log {
        let date = format!(
            "{}/{}/{}:{}:{}:{} {}",
            rng.range(1, 29),
            rng.pick(&MONTHS),
            rng.range(1970, 2022),
            rng.range(0, 24),
            rng.range(0, 60),
            rng.range(0, 60),
            rng.pick(&TIMEZONE),
        );
        let request = format!(
            "{} {} {}",
            rng.pick(&METHODS),
            rng.pick(&ROUTES),
            rng.pick(&PROTOCOLS)
        );
        Log {
            address: Address {
                x0: rng.next_u32() as u8,
                x1: rng.next_u32() as u8,
                x2: rng.next_u32() as u8,
                x3: rng.next_u32() as u8,
            },
            identity: "-".into(),
            userid: rng.pick(&USERID).into(),
            date,
            request,
            code: rng.pick(&CODES),
            size: rng.below(100_000_000),
        }
    }

    pub fn generate() -> Logs {
        let mut rng = Rng::new(SEED);
        Logs {
            logs: (0..10_000).map(|_| log(&mut rng)).collect(),
        }
    }
}

pub mod mesh {
    use super::*;

    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Vector3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }

    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Triangle {
        pub v0: Vector3,
        pub v1: Vector3,
        pub v2: Vector3,
        pub normal: Vector3,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Mesh {
        pub triangles: Vec<Triangle>,
    }

    fn vector(rng: &mut Rng) -> Vector3 {
        Vector3 {
            x: rng.f32(),
            y: rng.f32(),
            z: rng.f32(),
        }
    }

    pub fn generate() -> Mesh {
        let mut rng = Rng::new(SEED);
        Mesh {
            triangles: (0..125_000)
                .map(|_| Triangle {
                    v0: vector(&mut rng),
                    v1: vector(&mut rng),
                    v2: vector(&mut rng),
                    normal: vector(&mut rng),
                })
                .collect(),
        }
    }
}

pub mod minecraft_savedata {
    use super::*;

    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Eq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    #[repr(u8)]
    pub enum GameType {
        Survival,
        Creative,
        Adventure,
        Spectator,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Item {
        pub count: i8,
        pub slot: u8,
        pub id: String,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowItem<'a> {
        pub count: i8,
        pub slot: u8,
        pub id: &'a str,
    }

    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Abilities {
        pub walk_speed: f32,
        pub fly_speed: f32,
        pub may_fly: bool,
        pub flying: bool,
        pub invulnerable: bool,
        pub may_build: bool,
        pub instabuild: bool,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Entity {
        pub id: String,
        pub pos: (f64, f64, f64),
        pub motion: (f64, f64, f64),
        pub rotation: (f32, f32),
        pub fall_distance: f32,
        pub fire: u16,
        pub air: u16,
        pub on_ground: bool,
        pub no_gravity: bool,
        pub invulnerable: bool,
        pub portal_cooldown: i32,
        pub uuid: [u32; 4],
        pub custom_name: Option<String>,
        pub custom_name_visible: bool,
        pub silent: bool,
        pub glowing: bool,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowEntity<'a> {
        pub id: &'a str,
        pub pos: (f64, f64, f64),
        pub motion: (f64, f64, f64),
        pub rotation: (f32, f32),
        pub fall_distance: f32,
        pub fire: u16,
        pub air: u16,
        pub on_ground: bool,
        pub no_gravity: bool,
        pub invulnerable: bool,
        pub portal_cooldown: i32,
        pub uuid: [u32; 4],
        pub custom_name: Option<&'a str>,
        pub custom_name_visible: bool,
        pub silent: bool,
        pub glowing: bool,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct RecipeBook {
        pub recipes: Vec<String>,
        pub to_be_displayed: Vec<String>,
        pub is_filtering_craftable: bool,
        pub is_gui_open: bool,
        pub is_furnace_filtering_craftable: bool,
        pub is_furnace_gui_open: bool,
        pub is_blasting_furnace_filtering_craftable: bool,
        pub is_blasting_furnace_gui_open: bool,
        pub is_smoker_filtering_craftable: bool,
        pub is_smoker_gui_open: bool,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowRecipeBook<'a> {
        #[serde(borrow)]
        pub recipes: Vec<&'a str>,
        pub to_be_displayed: Vec<&'a str>,
        pub is_filtering_craftable: bool,
        pub is_gui_open: bool,
        pub is_furnace_filtering_craftable: bool,
        pub is_furnace_gui_open: bool,
        pub is_blasting_furnace_filtering_craftable: bool,
        pub is_blasting_furnace_gui_open: bool,
        pub is_smoker_filtering_craftable: bool,
        pub is_smoker_gui_open: bool,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Player {
        pub game_type: GameType,
        pub previous_game_type: GameType,
        pub score: i64,
        pub dimension: String,
        pub selected_item_slot: u32,
        pub selected_item: Item,
        pub spawn_dimension: Option<String>,
        pub spawn_x: i64,
        pub spawn_y: i64,
        pub spawn_z: i64,
        pub spawn_forced: Option<bool>,
        pub sleep_timer: u16,
        pub food_exhaustion_level: f32,
        pub food_saturation_level: f32,
        pub food_tick_timer: u32,
        pub xp_level: u32,
        pub xp_p: f32,
        pub xp_total: i32,
        pub xp_seed: i32,
        pub inventory: Vec<Item>,
        pub ender_items: Vec<Item>,
        pub abilities: Abilities,
        pub entered_nether_position: Option<(f64, f64, f64)>,
        pub root_vehicle: Option<([u32; 4], Entity)>,
        pub shoulder_entity_left: Option<Entity>,
        pub shoulder_entity_right: Option<Entity>,
        pub seen_credits: bool,
        pub recipe_book: RecipeBook,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowPlayer<'a> {
        pub game_type: GameType,
        pub previous_game_type: GameType,
        pub score: i64,
        pub dimension: &'a str,
        pub selected_item_slot: u32,
        #[serde(borrow)]
        pub selected_item: BorrowItem<'a>,
        pub spawn_dimension: Option<&'a str>,
        pub spawn_x: i64,
        pub spawn_y: i64,
        pub spawn_z: i64,
        pub spawn_forced: Option<bool>,
        pub sleep_timer: u16,
        pub food_exhaustion_level: f32,
        pub food_saturation_level: f32,
        pub food_tick_timer: u32,
        pub xp_level: u32,
        pub xp_p: f32,
        pub xp_total: i32,
        pub xp_seed: i32,
        #[serde(borrow)]
        pub inventory: Vec<BorrowItem<'a>>,
        #[serde(borrow)]
        pub ender_items: Vec<BorrowItem<'a>>,
        pub abilities: Abilities,
        pub entered_nether_position: Option<(f64, f64, f64)>,
        #[serde(borrow)]
        pub root_vehicle: Option<([u32; 4], BorrowEntity<'a>)>,
        #[serde(borrow)]
        pub shoulder_entity_left: Option<BorrowEntity<'a>>,
        #[serde(borrow)]
        pub shoulder_entity_right: Option<BorrowEntity<'a>>,
        pub seen_credits: bool,
        #[serde(borrow)]
        pub recipe_book: BorrowRecipeBook<'a>,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Players {
        pub players: Vec<Player>,
    }

    #[derive(
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct BorrowPlayers<'a> {
        #[serde(borrow)]
        pub players: Vec<BorrowPlayer<'a>>,
    }

    impl<'a> From<&'a Item> for BorrowItem<'a> {
        fn from(item: &'a Item) -> Self {
            BorrowItem {
                count: item.count,
                slot: item.slot,
                id: &item.id,
            }
        }
    }

    impl<'a> From<&'a Entity> for BorrowEntity<'a> {
        fn from(e: &'a Entity) -> Self {
            BorrowEntity {
                id: &e.id,
                pos: e.pos,
                motion: e.motion,
                rotation: e.rotation,
                fall_distance: e.fall_distance,
                fire: e.fire,
                air: e.air,
                on_ground: e.on_ground,
                no_gravity: e.no_gravity,
                invulnerable: e.invulnerable,
                portal_cooldown: e.portal_cooldown,
                uuid: e.uuid,
                custom_name: e.custom_name.as_deref(),
                custom_name_visible: e.custom_name_visible,
                silent: e.silent,
                glowing: e.glowing,
            }
        }
    }

    impl<'a> From<&'a RecipeBook> for BorrowRecipeBook<'a> {
        fn from(r: &'a RecipeBook) -> Self {
            BorrowRecipeBook {
                recipes: r.recipes.iter().map(String::as_str).collect(),
                to_be_displayed: r.to_be_displayed.iter().map(String::as_str).collect(),
                is_filtering_craftable: r.is_filtering_craftable,
                is_gui_open: r.is_gui_open,
                is_furnace_filtering_craftable: r.is_furnace_filtering_craftable,
                is_furnace_gui_open: r.is_furnace_gui_open,
                is_blasting_furnace_filtering_craftable: r.is_blasting_furnace_filtering_craftable,
                is_blasting_furnace_gui_open: r.is_blasting_furnace_gui_open,
                is_smoker_filtering_craftable: r.is_smoker_filtering_craftable,
                is_smoker_gui_open: r.is_smoker_gui_open,
            }
        }
    }

    impl<'a> From<&'a Player> for BorrowPlayer<'a> {
        fn from(p: &'a Player) -> Self {
            BorrowPlayer {
                game_type: p.game_type,
                previous_game_type: p.previous_game_type,
                score: p.score,
                dimension: &p.dimension,
                selected_item_slot: p.selected_item_slot,
                selected_item: (&p.selected_item).into(),
                spawn_dimension: p.spawn_dimension.as_deref(),
                spawn_x: p.spawn_x,
                spawn_y: p.spawn_y,
                spawn_z: p.spawn_z,
                spawn_forced: p.spawn_forced,
                sleep_timer: p.sleep_timer,
                food_exhaustion_level: p.food_exhaustion_level,
                food_saturation_level: p.food_saturation_level,
                food_tick_timer: p.food_tick_timer,
                xp_level: p.xp_level,
                xp_p: p.xp_p,
                xp_total: p.xp_total,
                xp_seed: p.xp_seed,
                inventory: p.inventory.iter().map(Into::into).collect(),
                ender_items: p.ender_items.iter().map(Into::into).collect(),
                abilities: p.abilities,
                entered_nether_position: p.entered_nether_position,
                root_vehicle: p.root_vehicle.as_ref().map(|(uuid, e)| (*uuid, e.into())),
                shoulder_entity_left: p.shoulder_entity_left.as_ref().map(Into::into),
                shoulder_entity_right: p.shoulder_entity_right.as_ref().map(Into::into),
                seen_credits: p.seen_credits,
                recipe_book: (&p.recipe_book).into(),
            }
        }
    }

    impl<'a> From<&'a Players> for BorrowPlayers<'a> {
        fn from(p: &'a Players) -> Self {
            BorrowPlayers {
                players: p.players.iter().map(Into::into).collect(),
            }
        }
    }

    const ITEM_IDS: [&str; 8] = [
        "dirt",
        "stone",
        "pickaxe",
        "sand",
        "gravel",
        "shovel",
        "chestplate",
        "steak",
    ];
    const ENTITY_IDS: [&str; 8] = [
        "cow", "sheep", "zombie", "skeleton", "spider", "creeper", "parrot", "bee",
    ];
    const CUSTOM_NAMES: [&str; 8] = [
        "rainbow", "princess", "steve", "johnny", "missy", "coward", "fairy", "howard",
    ];
    const RECIPES: [&str; 8] = [
        "pickaxe",
        "torch",
        "bow",
        "crafting table",
        "furnace",
        "shears",
        "arrow",
        "tnt",
    ];
    const DIMENSIONS: [&str; 3] = ["overworld", "nether", "end"];

    fn game_type(rng: &mut Rng) -> GameType {
        rng.pick(&[
            GameType::Survival,
            GameType::Creative,
            GameType::Adventure,
            GameType::Spectator,
        ])
    }

    fn item(rng: &mut Rng) -> Item {
        Item {
            count: rng.next_u32() as i8,
            slot: rng.next_u32() as u8,
            id: rng.pick(&ITEM_IDS).into(),
        }
    }

    fn triple(rng: &mut Rng) -> (f64, f64, f64) {
        (rng.f64(), rng.f64(), rng.f64())
    }

    fn uuid(rng: &mut Rng) -> [u32; 4] {
        [
            rng.next_u32(),
            rng.next_u32(),
            rng.next_u32(),
            rng.next_u32(),
        ]
    }

    fn entity(rng: &mut Rng) -> Entity {
        Entity {
            id: rng.pick(&ENTITY_IDS).into(),
            pos: triple(rng),
            motion: triple(rng),
            rotation: (rng.f32(), rng.f32()),
            fall_distance: rng.f32(),
            fire: rng.next_u32() as u16,
            air: rng.next_u32() as u16,
            on_ground: rng.bool(0.5),
            no_gravity: rng.bool(0.5),
            invulnerable: rng.bool(0.5),
            portal_cooldown: rng.next_u32() as i32,
            uuid: uuid(rng),
            custom_name: rng.option(|rng| rng.pick(&CUSTOM_NAMES).into()),
            custom_name_visible: rng.bool(0.5),
            silent: rng.bool(0.5),
            glowing: rng.bool(0.5),
        }
    }

    fn recipe_book(rng: &mut Rng) -> RecipeBook {
        RecipeBook {
            recipes: rng.vec(0, 30, |rng| rng.pick(&RECIPES).into()),
            to_be_displayed: rng.vec(0, 10, |rng| rng.pick(&RECIPES).into()),
            is_filtering_craftable: rng.bool(0.5),
            is_gui_open: rng.bool(0.5),
            is_furnace_filtering_craftable: rng.bool(0.5),
            is_furnace_gui_open: rng.bool(0.5),
            is_blasting_furnace_filtering_craftable: rng.bool(0.5),
            is_blasting_furnace_gui_open: rng.bool(0.5),
            is_smoker_filtering_craftable: rng.bool(0.5),
            is_smoker_gui_open: rng.bool(0.5),
        }
    }

    fn player(rng: &mut Rng) -> Player {
        Player {
            game_type: game_type(rng),
            previous_game_type: game_type(rng),
            score: rng.next_u64() as i64,
            dimension: rng.pick(&DIMENSIONS).into(),
            selected_item_slot: rng.next_u32(),
            selected_item: item(rng),
            spawn_dimension: rng.option(|rng| rng.pick(&DIMENSIONS).into()),
            spawn_x: rng.next_u64() as i64,
            spawn_y: rng.next_u64() as i64,
            spawn_z: rng.next_u64() as i64,
            spawn_forced: rng.option(|rng| rng.bool(0.5)),
            sleep_timer: rng.next_u32() as u16,
            food_exhaustion_level: rng.f32(),
            food_saturation_level: rng.f32(),
            food_tick_timer: rng.next_u32(),
            xp_level: rng.next_u32(),
            xp_p: rng.f32(),
            xp_total: rng.next_u32() as i32,
            xp_seed: rng.next_u32() as i32,
            inventory: rng.vec(0, 40, item),
            ender_items: rng.vec(0, 27, item),
            abilities: Abilities {
                walk_speed: rng.f32(),
                fly_speed: rng.f32(),
                may_fly: rng.bool(0.5),
                flying: rng.bool(0.5),
                invulnerable: rng.bool(0.5),
                may_build: rng.bool(0.5),
                instabuild: rng.bool(0.5),
            },
            entered_nether_position: rng.option(triple),
            root_vehicle: rng.option(|rng| (uuid(rng), entity(rng))),
            shoulder_entity_left: rng.option(entity),
            shoulder_entity_right: rng.option(entity),
            seen_credits: rng.bool(0.5),
            recipe_book: recipe_book(rng),
        }
    }

    pub fn generate() -> Players {
        let mut rng = Rng::new(SEED);
        Players {
            players: (0..500).map(|_| player(&mut rng)).collect(),
        }
    }
}

pub mod mk48 {
    use super::*;

    #[derive(
        Copy,
        Clone,
        Debug,
        PartialEq,
        Eq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    #[repr(u8)]
    pub enum EntityType {
        ArleighBurke,
        Bismarck,
        Clemenceau,
        Fletcher,
        G5,
        Iowa,
        Kolkata,
        Osa,
        Yasen,
        Zubr,
    }

    /// Each type with its frequency, turret count and weapon count.
    const ENTITY_TYPES: [(EntityType, f32, usize, usize); 10] = [
        (EntityType::ArleighBurke, 2.14, 1, 20),
        (EntityType::Bismarck, 0.52, 4, 10),
        (EntityType::Clemenceau, 0.97, 4, 16),
        (EntityType::Fletcher, 1.46, 4, 18),
        (EntityType::G5, 13.16, 0, 2),
        (EntityType::Iowa, 1.55, 3, 28),
        (EntityType::Kolkata, 0.83, 1, 15),
        (EntityType::Osa, 7.25, 2, 6),
        (EntityType::Yasen, 4.06, 0, 14),
        (EntityType::Zubr, 12.92, 3, 11),
    ];

    #[derive(
        Copy,
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Transform {
        pub altitude: i8,
        pub angle: u16,
        pub position: (f32, f32),
        pub velocity: i16,
    }

    #[derive(
        Copy,
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        msgpacker::MsgUnpackerBorrowed,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Guidance {
        pub angle: u16,
        pub submerge: bool,
        pub velocity: i16,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Contact {
        pub damage: u8,
        pub entity_id: u32,
        pub entity_type: Option<EntityType>,
        pub guidance: Guidance,
        pub player_id: Option<u16>,
        pub reloads: Vec<bool>,
        pub transform: Transform,
        pub turret_angles: Vec<u16>,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct TerrainUpdate {
        pub chunk_id: (i8, i8),
        #[msgpacker(binary)]
        pub data: Vec<u8>,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Update {
        pub contacts: Vec<Contact>,
        pub score: u32,
        pub world_radius: f32,
        pub terrain_updates: Vec<TerrainUpdate>,
    }

    #[derive(
        Clone,
        Debug,
        PartialEq,
        Serialize,
        Deserialize,
        msgpacker::MsgPacker,
        hardpack::Encode,
        hardpack::Decode,
    )]
    pub struct Updates {
        pub updates: Vec<Update>,
    }

    fn entity_type(rng: &mut Rng) -> usize {
        let total: f32 = ENTITY_TYPES.iter().map(|t| t.1).sum();
        let mut at = rng.f32() * total;
        for (i, t) in ENTITY_TYPES.iter().enumerate() {
            if at < t.1 {
                return i;
            }
            at -= t.1;
        }
        ENTITY_TYPES.len() - 1
    }

    fn submerge(rng: &mut Rng, entity_type: EntityType) -> bool {
        entity_type == EntityType::Yasen && rng.bool(0.9)
    }

    fn velocity(rng: &mut Rng) -> i16 {
        const MIN_SPEED: i64 = 140;
        const MAX_SPEED: i64 = 900;
        const REVERSE_SLOW: i64 = 4;
        match rng.range(0, 100) {
            0..=79 => rng.range(MIN_SPEED, MAX_SPEED) as i16,
            80..=89 => 0,
            _ => rng.range(-MAX_SPEED / REVERSE_SLOW, -MIN_SPEED / REVERSE_SLOW) as i16,
        }
    }

    fn contact(rng: &mut Rng, player_count: u16) -> Contact {
        let entity_count = u64::from(player_count) * 20;
        let (entity_type, _, turrets, weapons) = ENTITY_TYPES[entity_type(rng)];
        let is_visible = rng.bool(0.7);
        Contact {
            damage: if is_visible && rng.bool(0.6) {
                0
            } else {
                rng.range(0, 200) as u8
            },
            entity_id: rng.below(entity_count) as u32,
            entity_type: is_visible.then_some(entity_type),
            guidance: Guidance {
                angle: rng.next_u32() as u16,
                submerge: submerge(rng, entity_type),
                velocity: velocity(rng),
            },
            player_id: is_visible.then(|| rng.below(u64::from(player_count)) as u16),
            reloads: if is_visible {
                let p = rng.f64();
                (0..weapons).map(|_| rng.bool(p)).collect()
            } else {
                Vec::new()
            },
            transform: {
                const RANGE: f32 = 750.0;
                Transform {
                    altitude: if submerge(rng, entity_type) {
                        rng.range(-120, -35) as i8
                    } else {
                        0
                    },
                    angle: rng.next_u32() as u16,
                    position: (rng.f32_range(-RANGE, RANGE), rng.f32_range(-RANGE, RANGE)),
                    velocity: velocity(rng),
                }
            },
            turret_angles: if is_visible {
                let base_angle = rng.next_u32() as u16;
                (0..turrets)
                    .map(|_| {
                        if rng.bool(0.75) {
                            (base_angle as i16).wrapping_add(rng.range(-200, 200) as i16) as u16
                        } else {
                            rng.next_u32() as u16
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            },
        }
    }

    fn terrain_update(rng: &mut Rng, radius: i8) -> TerrainUpdate {
        let is_new = rng.bool(0.02);
        let radius = i64::from(radius);
        TerrainUpdate {
            chunk_id: (
                rng.range(-radius, radius) as i8,
                rng.range(-radius, radius) as i8,
            ),
            data: if is_new {
                rng.vec(900, 1100, |rng| rng.next_u32() as u8)
            } else {
                rng.vec(3, 9, |rng| rng.next_u32() as u8)
            },
        }
    }

    fn update(rng: &mut Rng) -> Update {
        let player_count = rng.range(200, 400) as u16;
        let world_radius = (f32::from(player_count) * 15000.0).sqrt() + rng.f32_range(-50.0, 50.0);
        let terrain_radius = (world_radius / 1600.0).ceil() as i8;
        Update {
            contacts: rng.vec(20, 40, |rng| contact(rng, player_count)),
            score: (rng.f32().powi(4) * 5000.0) as u32 + rng.range(0, 50) as u32,
            world_radius,
            terrain_updates: rng.vec(3, 10, |rng| terrain_update(rng, terrain_radius)),
        }
    }

    pub fn generate() -> Updates {
        let mut rng = Rng::new(SEED);
        Updates {
            updates: (0..1_000).map(|_| update(&mut rng)).collect(),
        }
    }
}

/// The numeric arrays: one `Vec<i64>` (every encoded width, negative and not) and one
/// `Vec<f64>` of 1,000,000 each.
pub mod numbers {
    /// A xorshift generator: the same numbers every run (`typed`'s workloads draw from it too).
    pub fn generator(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    pub fn ints() -> Vec<i64> {
        let mut next = generator(0x1234_5678_9abc_def0);
        (0..1_000_000)
            .map(|i| {
                let n = next();
                // Every encoded width: fixints, 8, 16, 32 and 64 bits.
                let magnitude = match i % 5 {
                    0 => n % 100,
                    1 => n % 200,
                    2 => n % 60_000,
                    3 => n % 4_000_000_000,
                    _ => n >> 1,
                } as i64;
                if i % 2 == 0 {
                    magnitude
                } else {
                    -magnitude
                }
            })
            .collect()
    }

    pub fn floats() -> Vec<f64> {
        let mut next = generator(0x1234_5678_9abc_def0);
        // The draws after the integers': the numbers `typed` has always measured.
        for _ in 0..1_000_000 {
            next();
        }
        (0..1_000_000)
            .map(|_| (next() >> 11) as f64 / (1u64 << 53) as f64 * 1e6 - 5e5)
            .collect()
    }
}
