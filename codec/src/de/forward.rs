//! Deserializers that wrap the main one, to read some items their own way and hand every
//! other method to it.

use serde::de::Visitor;

use super::deserializer::Deserializer;
use super::error::DeError;

/// The methods of `serde::Deserializer` that a wrapper (a struct whose field `de` is the main
/// deserializer) hands to it unchanged: every one but `deserialize_identifier`, which each
/// wrapper writes or forwards itself (`forward_to_main!(@visitor deserialize_identifier)`).
macro_rules! forward_to_main {
    (@visitor $($method:ident)*) => {
        $(
            #[inline(always)]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                serde::de::Deserializer::$method(self.de, visitor)
            }
        )*
    };
    () => {
        forward_to_main! { @visitor
            deserialize_any deserialize_bool
            deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
            deserialize_f32 deserialize_f64 deserialize_char
            deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
            deserialize_option deserialize_unit deserialize_seq deserialize_map
            deserialize_ignored_any
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, DeError> {
            serde::de::Deserializer::deserialize_unit_struct(self.de, name, visitor)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, DeError> {
            serde::de::Deserializer::deserialize_newtype_struct(self.de, name, visitor)
        }

        fn deserialize_tuple<V: Visitor<'de>>(
            self,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, DeError> {
            serde::de::Deserializer::deserialize_tuple(self.de, len, visitor)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, DeError> {
            serde::de::Deserializer::deserialize_tuple_struct(self.de, name, len, visitor)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, DeError> {
            serde::de::Deserializer::deserialize_struct(self.de, name, fields, visitor)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, DeError> {
            serde::de::Deserializer::deserialize_enum(self.de, name, variants, visitor)
        }

        /// As the main deserializer's: MessagePack is binary.
        fn is_human_readable(&self) -> bool {
            false
        }
    };
}

/// The deserializer a map's value is read through, every method the main one's. Its own
/// type keeps the value's `Deserialize` apart from the same type's read as an array's
/// element: as one function with callers on both paths, LLVM stopped inlining it into the
/// array path as well.
pub(super) struct MapValue<'a, 'de, const STRICT: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
}

impl<'de, const STRICT: bool> serde::de::Deserializer<'de> for MapValue<'_, 'de, STRICT> {
    type Error = DeError;

    forward_to_main!();
    forward_to_main!(@visitor deserialize_identifier);
}
