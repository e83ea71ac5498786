//! `#[derive(Decode, Encode)]` for hardpack (use it through `hardpack`'s `derive` feature).
//!
//! The generated code reads each field straight into a local through `hardpack::derive`'s
//! reader, which keeps every check of the serde path, and writes the form rmp-serde writes by
//! default. Attributes, on a field or a variant: `#[hardpack(rename = "name")]`,
//! `#[hardpack(default)]` (a field an array or map leaves out is its `Default`),
//! `#[hardpack(skip)]` (never written, read as its `Default`; a skipped variant is neither),
//! `#[hardpack(with = "module")]` (a field read by `module::decode` and written by
//! `module::encode`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, parse_quote, Data, DeriveInput, Error, Fields, GenericParam, Generics,
    Ident, LitStr, Path, Type,
};

#[proc_macro_derive(Decode, attributes(hardpack))]
pub fn derive_decode(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    decode(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

#[proc_macro_derive(Encode, attributes(hardpack))]
pub fn derive_encode(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    encode(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// What `#[hardpack(..)]` says of a field or variant.
#[derive(Default)]
struct Attrs {
    rename: Option<String>,
    default: bool,
    skip: bool,
    with: Option<Path>,
}

fn attrs(list: &[syn::Attribute]) -> Result<Attrs, Error> {
    let mut out = Attrs::default();
    for attr in list.iter().filter(|a| a.path().is_ident("hardpack")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("default") {
                out.default = true;
            } else if meta.path.is_ident("skip") {
                out.skip = true;
            } else if meta.path.is_ident("with") {
                out.with = Some(meta.value()?.parse::<LitStr>()?.parse()?);
            } else {
                return Err(meta.error("unknown hardpack attribute (rename, default, skip, with)"));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// One field of a struct, a tuple struct or a variant.
struct Field {
    /// The member: a name, or an index of a tuple.
    member: syn::Member,
    ty: Type,
    /// The name on the wire (a map key), for named fields.
    name: String,
    attrs: Attrs,
}

fn fields(fields: &Fields) -> Result<Vec<Field>, Error> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let attrs = attrs(&f.attrs)?;
            let (member, name) = match &f.ident {
                Some(ident) => (
                    syn::Member::Named(ident.clone()),
                    attrs.rename.clone().unwrap_or_else(|| unraw(ident)),
                ),
                None => (syn::Member::Unnamed(i.into()), i.to_string()),
            };
            Ok(Field {
                member,
                ty: f.ty.clone(),
                name,
                attrs,
            })
        })
        .collect()
}

fn unraw(ident: &Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_string()
}

/// The path generated code reaches the runtime by.
fn private() -> TokenStream {
    quote!(::hardpack::derive::__private)
}

/// The generics of a `Decode<'de>` impl: `'de` outliving every lifetime of the type (so
/// `&'a str` fields borrow from the input), and `T: Decode<'de>` for every type parameter.
fn decode_generics(generics: &Generics) -> (Generics, TokenStream) {
    let mut impl_generics = generics.clone();
    let lifetimes: Vec<_> = generics.lifetimes().map(|l| l.lifetime.clone()).collect();
    let de: syn::LifetimeParam = if lifetimes.is_empty() {
        parse_quote!('de)
    } else {
        parse_quote!('de: #(#lifetimes)+*)
    };
    for param in &mut impl_generics.params {
        if let GenericParam::Type(t) = param {
            t.bounds.push(parse_quote!(::hardpack::derive::Decode<'de>));
        }
    }
    impl_generics.params.insert(0, GenericParam::Lifetime(de));
    (impl_generics, quote!('de))
}

fn decode(input: &DeriveInput) -> Result<TokenStream, Error> {
    let p = private();
    let name = &input.ident;
    let (impl_generics, _) = decode_generics(&input.generics);
    let (impl_generics, _, _) = impl_generics.split_for_impl();
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    let type_name = name.to_string();
    let mut plain = TokenStream::new();
    let (mut body, expecting) = match &input.data {
        Data::Struct(data) => {
            let fields = fields(&data.fields)?;
            match &data.fields {
                Fields::Named(_) => {
                    let expecting = format!("struct {type_name}");
                    let read = read_structure(&quote!(#name), &fields, &expecting)?;
                    let body = read_struct_body(&quote!(#name), &fields, &expecting, true, read);
                    plain = plain_items(&quote!(#name), &fields, true);
                    (body, expecting)
                }
                Fields::Unnamed(_) if fields.len() == 1 && !fields[0].attrs.skip => {
                    let read = match &fields[0].attrs.with {
                        Some(with) => quote!(#p::newtype_with(__de, |__de| #with::decode(__de))),
                        None => quote!(#p::newtype(__de)),
                    };
                    (
                        quote!(#p::Result::map(#read, #name)),
                        format!("tuple struct {type_name}"),
                    )
                }
                Fields::Unnamed(_) => {
                    let expecting = format!("tuple struct {type_name}");
                    let seq = read_tuple(&quote!(#name), &fields, &expecting)?;
                    let read = quote! {(
                        #expecting,
                        &[],
                        #seq,
                        |_: &mut #p::Entries<'_, 'de, STRICT>| #p::refuse_map(&#expecting),
                    )};
                    let body = read_struct_body(&quote!(#name), &fields, &expecting, false, read);
                    plain = plain_items(&quote!(#name), &fields, false);
                    (body, expecting)
                }
                Fields::Unit => {
                    let expecting = format!("unit struct {type_name}");
                    (
                        quote!(#p::Result::map(#p::unit_struct(__de, #expecting), |()| #name)),
                        expecting,
                    )
                }
            }
        }
        Data::Enum(data) => {
            let expecting = format!("enum {type_name}");
            let mut names = Vec::new();
            let mut arms = Vec::new();
            for variant in &data.variants {
                let attrs = attrs(&variant.attrs)?;
                if attrs.skip {
                    continue;
                }
                let index = names.len();
                let wire = attrs
                    .rename
                    .clone()
                    .unwrap_or_else(|| unraw(&variant.ident));
                names.push(wire);
                let ident = &variant.ident;
                let path = quote!(#name::#ident);
                let fields = fields(&variant.fields)?;
                let described = format!("{type_name}::{ident}");
                let read = match &variant.fields {
                    Fields::Unit => quote! {{ __variant.unit()?; #p::Ok(#path) }},
                    Fields::Unnamed(_) if fields.len() == 1 && !fields[0].attrs.skip => {
                        match &fields[0].attrs.with {
                            Some(with) => {
                                quote!(#p::Result::map(__variant.newtype_with(|__de| #with::decode(__de)), #path))
                            }
                            None => quote!(#p::Result::map(__variant.newtype(), #path)),
                        }
                    }
                    Fields::Unnamed(_) => {
                        let expecting = format!("tuple variant {described}");
                        let seq = read_tuple(&path, &fields, &expecting)?;
                        quote!(__variant.tuple(&#expecting, #seq))
                    }
                    Fields::Named(_) => {
                        let expecting = format!("struct variant {described}");
                        let read = read_structure(&path, &fields, &expecting)?;
                        let body = read_struct_body(&path, &fields, &expecting, true, read);
                        // In its own closure: the frame of the enum's read, which a
                        // recursive type stacks once a level, does not hold this variant's
                        // locals (a debug build gives each its own slot).
                        quote! {{
                            let __read = |__de: &mut #p::Deserializer<'de, STRICT>|
                                -> #p::Result<Self, #p::DeError> { #body };
                            __read(__variant.struct_content()?)
                        }}
                    }
                };
                arms.push(quote!(#index => #read,));
            }
            (
                quote! {
                    const __VARIANTS: &[&str] = &[#(#names),*];
                    #p::enumeration(__de, __VARIANTS, |__index, __variant| match __index {
                        #(#arms)*
                        _ => #p::Err(#p::unknown_index()),
                    })
                },
                expecting,
            )
        }
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span,
                "hardpack cannot derive Decode for a union",
            ))
        }
    };
    if !plain.is_empty() {
        // The whole value in its plain form, where it has one: a read with no call in it, so
        // that no field's value is spilled around one (it folds away where a field has none).
        body = quote! {
            if let #p::Some(__value) = #p::plain::<Self, STRICT>(__de) {
                return #p::Ok(__value);
            }
            #body
        };
    }
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::hardpack::derive::Decode<'de> for #name #ty_generics #where_clause {
            // Inlined into the caller's read in an optimized build, where a value returned
            // out of line went through memory; not in a debug build, where an inlined frame
            // takes its callee's slots too, once a level of a recursive type.
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn decode<const STRICT: bool>(
                __de: &mut #p::Deserializer<'de, STRICT>,
            ) -> #p::Result<Self, #p::DeError> {
                #body
            }

            fn from_byte(__byte: u8) -> #p::Result<Self, #p::DeError> {
                #p::Err(#p::invalid_byte(__byte, &#expecting))
            }

            #plain
        }
    })
}

/// The value built from its fields' locals: by name, or in order.
fn construct(build: &TokenStream, fields: &[Field], locals: &[Ident], named: bool) -> TokenStream {
    if named {
        let members = fields.iter().map(|f| &f.member);
        quote!(#build { #(#members: #locals),* })
    } else {
        quote!(#build(#(#locals),*))
    }
}

/// For a struct whose fields all have plain forms (numbers, bools, such structs and tuples;
/// see `Decode::peek_plain`), read from an array of them: its own plain form, and what its
/// read's checks come to. Nothing where a field is read by its own functions.
fn plain_items(build: &TokenStream, fields: &[Field], named: bool) -> TokenStream {
    let p = private();
    if fields.iter().any(|f| f.attrs.with.is_some()) {
        return TokenStream::new();
    }
    let read: Vec<&Field> = fields.iter().filter(|f| !f.attrs.skip).collect();
    let count = read.len();
    let read_types = read.iter().map(|f| &f.ty);
    let locals: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("__f{i}")).collect();
    let peeks = fields.iter().zip(&locals).map(|(field, local)| {
        let ty = &field.ty;
        if field.attrs.skip {
            quote!(let #local = ::core::default::Default::default();)
        } else {
            quote! {
                let (#local, __len) = <#ty as #p::Decode<'de>>::peek_plain(__rest)?;
                let __rest = __rest.get(__len..)?;
            }
        }
    });
    let construct = construct(build, fields, &locals, named);
    quote! {
        const PLAIN: #p::Plain = #p::Plain::array_of(
            #p::size_of::<Self>(),
            &[#(<#read_types as #p::Decode<'de>>::PLAIN),*],
        );

        #[inline(always)]
        fn peek_plain(__rest: &'de [u8]) -> #p::Option<(Self, usize)> {
            let __all = __rest.len();
            let __rest = #p::plain_array(__rest, #count)?;
            #(#peeks)*
            #p::Some((#construct, __all.saturating_sub(__rest.len())))
        }
    }
}

/// Where a struct's fields are read from when it is an array.
#[derive(Clone, Copy)]
enum ArrayReader {
    /// Straight-line code (`__seq`, after `struct_begin`), on the deserializer `__de`.
    Seq,
    /// `structure`'s closure, handed the array's elements (`__fields`).
    Fields,
}

/// The read of one field, at `index` among the fields read.
fn read_field(field: &Field, index: usize, expecting_len: &str, from: ArrayReader) -> TokenStream {
    let ty = &field.ty;
    let (reader, de, strict) = match from {
        ArrayReader::Seq => (quote!(__seq), quote!(__de,), quote!(, STRICT)),
        ArrayReader::Fields => (quote!(__fields), quote!(), quote!()),
    };
    match (&field.attrs.with, field.attrs.default) {
        (Some(with), false) => quote!(
            #reader.field_with(#de #index, &#expecting_len, |__de| #with::decode(__de))?
        ),
        (Some(with), true) => {
            quote!(#reader.field_with_or_default(#de |__de| #with::decode(__de))?)
        }
        (None, false) => quote!(#reader.field::<#ty #strict>(#de #index, &#expecting_len)?),
        (None, true) => quote!(#reader.field_or_default::<#ty #strict>(#de)?),
    }
}

/// Each field's local (`__f0`, ...) and the statement binding it: read in order, or its
/// default when skipped.
fn field_reads(
    fields: &[Field],
    expecting_len: &str,
    from: ArrayReader,
) -> (Vec<Ident>, Vec<TokenStream>) {
    let locals: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("__f{i}")).collect();
    let mut reads = Vec::new();
    let mut index = 0usize;
    for (field, local) in fields.iter().zip(&locals) {
        if field.attrs.skip {
            reads.push(quote!(let #local = ::core::default::Default::default();));
        } else {
            let element = read_field(field, index, expecting_len, from);
            reads.push(quote!(let #local = #element;));
            index += 1;
        }
    }
    (locals, reads)
}

/// A struct's (tuple struct's, struct variant's) whole read from `__de`: straight-line code for
/// the array of its fields, the closures of `read` (a tuple of `structure`'s arguments) for a
/// map or a bin.
fn read_struct_body(
    build: &TokenStream,
    fields: &[Field],
    expecting: &str,
    named: bool,
    read: TokenStream,
) -> TokenStream {
    let p = private();
    let count = fields.iter().filter(|f| !f.attrs.skip).count();
    let expecting_len = with_elements(expecting, count);
    let (locals, reads) = field_reads(fields, &expecting_len, ArrayReader::Seq);
    let construct = construct(build, fields, &locals, named);
    quote! {
        match #p::struct_begin(__de, #p::size_of::<Self>())? {
            #p::Some(__seq) => {
                #(#reads)*
                __seq.end(__de)?;
                #p::Ok(#construct)
            }
            #p::None => {
                let (_, __fields, __seq, __map) = #read;
                #p::struct_rest(__de, &#expecting, __fields, #p::size_of::<Self>(), __seq, __map)
            }
        }
    }
}

/// The reads of a struct's (or struct variant's) fields: a tuple of what
/// `structure` takes, the closures from an array and from a map.
fn read_structure(
    build: &TokenStream,
    fields: &[Field],
    expecting: &str,
) -> Result<TokenStream, Error> {
    let p = private();
    let read: Vec<&Field> = fields.iter().filter(|f| !f.attrs.skip).collect();
    let expecting_len = with_elements(expecting, read.len());
    let names: Vec<&str> = read.iter().map(|f| f.name.as_str()).collect();

    // From an array: each field in order.
    let (locals, seq_reads) = field_reads(fields, &expecting_len, ArrayReader::Fields);
    let members: Vec<&syn::Member> = fields.iter().map(|f| &f.member).collect();
    let construct = quote!(#build { #(#members: #locals),* });

    // From a map: each key names a field (or none); each field at most once.
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut finish = Vec::new();
    let mut index = 0usize;
    for (field, local) in fields.iter().zip(&locals) {
        let ty = &field.ty;
        if field.attrs.skip {
            finish.push(quote!(let #local = ::core::default::Default::default();));
            continue;
        }
        let wire = &field.name;
        slots.push(quote!(let mut #local: #p::Option<#ty> = #p::None;));
        let value = match &field.attrs.with {
            Some(with) => quote!(__map.value_with(|__de| #with::decode(__de))?),
            None => quote!(__map.value::<#ty>()?),
        };
        arms.push(quote! {
            #p::Some(#index) => {
                if #p::Option::is_some(&#local) {
                    return #p::Err(#p::duplicate_field(#wire));
                }
                #local = #p::Some(#value);
            }
        });
        let missing = if field.attrs.default {
            quote!(::core::default::Default::default())
        } else if field.attrs.with.is_some() {
            quote!(return #p::Err(#p::missing_field(#wire)))
        } else {
            quote!(<#ty as ::hardpack::derive::Decode<'de>>::missing(#wire)?)
        };
        finish.push(quote! {
            let #local = match #local {
                #p::Some(__value) => __value,
                #p::None => #missing,
            };
        });
        index += 1;
    }
    Ok(quote! {(
        #expecting,
        {
            const __FIELDS: &[&str] = &[#(#names),*];
            __FIELDS
        },
        |__fields: &mut #p::Fields<'_, 'de, STRICT>| -> #p::Result<Self, #p::DeError> {
            #(#seq_reads)*
            __fields.finish()?;
            #p::Ok(#construct)
        },
        |__map: &mut #p::Entries<'_, 'de, STRICT>| -> #p::Result<Self, #p::DeError> {
            #(#slots)*
            while let #p::Some(__key) = __map.next_key()? {
                match __key {
                    #(#arms)*
                    _ => __map.skip_value()?,
                }
            }
            #(#finish)*
            #p::Ok(#construct)
        },
    )})
}

/// serde's expectation of a sequence of `count` fields: "struct S with 2 elements", "with 1
/// element".
fn with_elements(expecting: &str, count: usize) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{expecting} with {count} element{plural}")
}

/// The closure reading a tuple struct's (or tuple variant's) fields from an array.
fn read_tuple(
    build: &TokenStream,
    fields: &[Field],
    expecting: &str,
) -> Result<TokenStream, Error> {
    let p = private();
    let count = fields.iter().filter(|f| !f.attrs.skip).count();
    let expecting_len = with_elements(expecting, count);
    let (locals, reads) = field_reads(fields, &expecting_len, ArrayReader::Fields);
    Ok(quote! {
        |__fields: &mut #p::Fields<'_, 'de, STRICT>| -> #p::Result<Self, #p::DeError> {
            #(#reads)*
            __fields.finish()?;
            #p::Ok(#build(#(#locals),*))
        }
    })
}

fn encode_generics(generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    for param in &mut generics.params {
        if let GenericParam::Type(t) = param {
            t.bounds.push(parse_quote!(::hardpack::derive::Encode));
        }
    }
    generics
}

/// The writes of fields held in locals `__f0`..: the array of those not skipped.
fn write_fields(fields: &[Field], locals: &[TokenStream]) -> TokenStream {
    let p = private();
    let count = fields.iter().filter(|f| !f.attrs.skip).count();
    let writes = fields
        .iter()
        .zip(locals)
        .filter(|(f, _)| !f.attrs.skip)
        .map(|(f, local)| match &f.attrs.with {
            Some(with) => quote!(#with::encode(#local, __out)?;),
            None => quote!(::hardpack::derive::Encode::encode(#local, __out)?;),
        });
    quote! {
        #p::write_array_len(#count, __out)?;
        #(#writes)*
    }
}

/// How a value is written into room reserved for its bound (`encode_bounded`): the bound of
/// its bytes, an expression of type `Option<usize>`, and the writes. `None` where a field is written by a
/// `with` function, which has no bound.
struct BoundedWrite {
    bound: TokenStream,
    /// Whether every value is written in exactly `bound` bytes: a `bool` expression.
    fixed: TokenStream,
    writes: TokenStream,
}

/// [`write_fields`]' bounded form.
fn bounded_fields(fields: &[Field], locals: &[TokenStream]) -> Option<BoundedWrite> {
    let p = private();
    let written: Vec<(&Field, &TokenStream)> = fields
        .iter()
        .zip(locals)
        .filter(|(f, _)| !f.attrs.skip)
        .collect();
    if written.iter().any(|(f, _)| f.attrs.with.is_some()) {
        return None;
    }
    let count = written.len();
    let types: Vec<&Type> = written.iter().map(|(f, _)| &f.ty).collect();
    let values = written.iter().map(|(_, local)| local);
    Some(BoundedWrite {
        bound: quote! {
            #p::bound_of_all(&[
                #p::Some(#p::container_header_len(#count)),
                #(<#types as ::hardpack::derive::Encode>::MAX_LEN),*
            ])
        },
        fixed: quote!(true #(&& <#types as ::hardpack::derive::Encode>::FIXED_LEN)*),
        writes: quote! {
            __out.array_header(#count);
            #(__out.put(#values)?;)*
        },
    })
}

/// The bounded form of a newtype's one field, written as itself.
fn bounded_newtype(field: &Field, local: &TokenStream) -> Option<BoundedWrite> {
    if field.attrs.with.is_some() {
        return None;
    }
    let ty = &field.ty;
    Some(BoundedWrite {
        bound: quote!(<#ty as ::hardpack::derive::Encode>::MAX_LEN),
        fixed: quote!(<#ty as ::hardpack::derive::Encode>::FIXED_LEN),
        writes: quote!(__out.put(#local)?;),
    })
}

fn encode(input: &DeriveInput) -> Result<TokenStream, Error> {
    let p = private();
    let name = &input.ident;
    let generics = encode_generics(&input.generics);
    let (impl_generics, _, _) = generics.split_for_impl();
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    let bounded: Option<BoundedWrite>;
    let body = match &input.data {
        Data::Struct(data) => {
            let fields = fields(&data.fields)?;
            let locals: Vec<TokenStream> = fields
                .iter()
                .map(|f| {
                    let member = &f.member;
                    quote!(&self.#member)
                })
                .collect();
            bounded = match &data.fields {
                Fields::Unit => Some(BoundedWrite {
                    bound: quote!(#p::Some(1)),
                    fixed: quote!(true),
                    writes: quote!(__out.array_header(0);),
                }),
                Fields::Unnamed(_) if fields.len() == 1 && !fields[0].attrs.skip => {
                    bounded_newtype(&fields[0], &locals[0])
                }
                _ => bounded_fields(&fields, &locals),
            };
            match &data.fields {
                Fields::Unit => quote!(#p::write_array_len(0, __out)?;),
                Fields::Unnamed(_) if fields.len() == 1 && !fields[0].attrs.skip => {
                    let local = &locals[0];
                    match &fields[0].attrs.with {
                        Some(with) => quote!(#with::encode(#local, __out)?;),
                        None => quote!(::hardpack::derive::Encode::encode(#local, __out)?;),
                    }
                }
                _ => write_fields(&fields, &locals),
            }
        }
        Data::Enum(data) => {
            let mut arms = Vec::new();
            // Each variant's bound and bounded arm: the enum is bounded if every one is.
            let mut bounded_arms: Vec<Option<(TokenStream, TokenStream)>> = Vec::new();
            for variant in &data.variants {
                let attrs = attrs(&variant.attrs)?;
                let ident = &variant.ident;
                let fields = fields(&variant.fields)?;
                let bindings: Vec<Ident> =
                    (0..fields.len()).map(|i| format_ident!("__f{i}")).collect();
                let pattern = match &variant.fields {
                    Fields::Unit => quote!(#name::#ident),
                    Fields::Unnamed(_) => quote!(#name::#ident(#(#bindings),*)),
                    Fields::Named(_) => {
                        let members = fields.iter().map(|f| &f.member);
                        quote!(#name::#ident { #(#members: #bindings),* })
                    }
                };
                if attrs.skip {
                    let message =
                        format!("the variant {name}::{ident} is skipped: it cannot be written");
                    arms.push(quote!(#pattern => return #p::Err(#p::skipped_variant(#message)),));
                    bounded_arms.push(None);
                    continue;
                }
                let wire = attrs.rename.clone().unwrap_or_else(|| unraw(ident));
                let locals: Vec<TokenStream> = bindings.iter().map(|b| quote!(#b)).collect();
                let name_len = quote!(#p::str_len(#wire.len()));
                bounded_arms.push(
                    match &variant.fields {
                        Fields::Unit => Some(BoundedWrite {
                            bound: quote!(#p::Some(#name_len)),
                            fixed: quote!(false),
                            writes: quote!(__out.str(#wire);),
                        }),
                        Fields::Unnamed(_) if fields.len() == 1 && !fields[0].attrs.skip => {
                            bounded_newtype(&fields[0], &locals[0])
                        }
                        _ => bounded_fields(&fields, &locals),
                    }
                    .map(|BoundedWrite { bound, writes, .. }| {
                        if matches!(variant.fields, Fields::Unit) {
                            return (bound, quote!(#pattern => { #writes }));
                        }
                        (
                            quote!(#p::bound_of_all(&[#p::Some(1), #p::Some(#name_len), #bound])),
                            quote! {
                                #pattern => {
                                    __out.map_header(1);
                                    __out.str(#wire);
                                    #writes
                                }
                            },
                        )
                    }),
                );
                let content = match &variant.fields {
                    Fields::Unit => {
                        arms.push(quote!(#pattern => #p::write_str(#wire, __out)?,));
                        continue;
                    }
                    Fields::Unnamed(_) if fields.len() == 1 && !fields[0].attrs.skip => {
                        let local = &locals[0];
                        match &fields[0].attrs.with {
                            Some(with) => quote!(#with::encode(#local, __out)?;),
                            None => quote!(::hardpack::derive::Encode::encode(#local, __out)?;),
                        }
                    }
                    _ => write_fields(&fields, &locals),
                };
                arms.push(quote! {
                    #pattern => {
                        #p::write_map_len(1, __out)?;
                        #p::write_str(#wire, __out)?;
                        #content
                    }
                });
            }
            bounded = bounded_arms
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .map(|variants| {
                    let (bounds, arms): (Vec<_>, Vec<_>) = variants.into_iter().unzip();
                    BoundedWrite {
                        bound: quote!(#p::bound_of_any(&[#(#bounds),*])),
                        // Variants' names and contents differ in length.
                        fixed: quote!(false),
                        writes: quote! {
                            #[allow(unused_variables)]
                            match self {
                                #(#arms)*
                            }
                        },
                    }
                });
            quote! {
                #[allow(unused_variables)]
                match self {
                    #(#arms)*
                }
            }
        }
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span,
                "hardpack cannot derive Encode for a union",
            ))
        }
    };
    // A bounded value is written straight into the `Vec`, in room reserved for its bound.
    let bounded_first = match &bounded {
        Some(_) => quote! {
            if #p::write_bounded(self, __out) {
                return #p::Ok(());
            }
        },
        None => quote!(),
    };
    let bounded_items = bounded.map(
        |BoundedWrite {
             bound,
             fixed,
             writes,
         }| {
            quote! {
                const MAX_LEN: #p::Option<usize> = #bound;
                const FIXED_LEN: bool = #fixed;

                #[inline]
                fn encode_bounded(&self, __out: &mut [u8]) -> #p::Option<usize> {
                    let mut __out =
                        #p::Bounded::new(__out, <Self as ::hardpack::derive::Encode>::MAX_LEN)?;
                    #writes
                    __out.done()
                }
            }
        },
    );
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::hardpack::derive::Encode for #name #ty_generics #where_clause {
            #bounded_items

            #[inline]
            fn encode(&self, __out: &mut #p::Vec<u8>) -> #p::Result<(), #p::EncodeError> {
                #bounded_first
                #body
                #p::Ok(())
            }
        }
    })
}
