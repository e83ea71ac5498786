//! serde: typed encoding (this module's [`Serializer`]), wire-compatible with rmp-serde, and
//! `Serialize` for the crate's own types. (Typed decoding, under the reader's limits and a
//! budget, is the next step of issue #11 and not here yet.)

mod ser;

#[cfg(feature = "std")]
pub use ser::to_writer;
pub use ser::{to_vec, to_vec_named, Compound, Serializer};

/// The newtype-struct name through which rmp-serde (and hardpack) pass an ext: a
/// `(i8, bytes)` tuple serialized as this newtype becomes an ext of that type.
pub const EXT_STRUCT_NAME: &str = "_ExtStruct";
