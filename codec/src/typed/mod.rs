//! serde: typed decoding ([`from_slice`], [`Deserializer`]: the token reader's checks and
//! depth limit, and a budget for what the visitors allocate) and encoding ([`Serializer`]),
//! wire-compatible with rmp-serde.

mod de;
mod ser;
mod value_ref;

pub use de::{from_slice, DeError, Deserializer, HINT_ELEMENT_BYTES};
pub use ser::{to_vec, to_vec_named, Compound, Serializer, SERIALIZE_MAX_DEPTH};
#[cfg(feature = "std")]
pub use ser::{to_writer, TO_WRITER_CHUNK};

/// The newtype-struct name through which rmp-serde (and hardpack) pass an ext: a
/// `(i8, bytes)` tuple serialized as this newtype becomes an ext of that type.
pub const EXT_STRUCT_NAME: &str = "_ExtStruct";
