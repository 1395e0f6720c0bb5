//! Between the 0.3.0 bindings' `schema-node` and copycat-data's
//! [`SchemaNode`] (the same fields; WIT's enum is its own type).

use copycat_data::Type;
use copycat_data::wire::SchemaNode;

pub use crate::__bindings_v0_3::source::copycat::connector::batch as packed;
use packed::SchemaType as T;

fn type_out(t: Type) -> T {
    match t {
        Type::Int8 => T::Int8,
        Type::Int16 => T::Int16,
        Type::Int32 => T::Int32,
        Type::Int64 => T::Int64,
        Type::Float32 => T::Float32,
        Type::Float64 => T::Float64,
        Type::Boolean => T::Boolean,
        Type::String => T::String,
        Type::Bytes => T::Bytes,
        Type::Array => T::Array,
        Type::Map => T::Map,
        Type::Struct => T::Struct,
    }
}

fn type_in(t: T) -> Type {
    match t {
        T::Int8 => Type::Int8,
        T::Int16 => Type::Int16,
        T::Int32 => Type::Int32,
        T::Int64 => Type::Int64,
        T::Float32 => Type::Float32,
        T::Float64 => Type::Float64,
        T::Boolean => Type::Boolean,
        T::String => Type::String,
        T::Bytes => Type::Bytes,
        T::Array => Type::Array,
        T::Map => Type::Map,
        T::Struct => Type::Struct,
    }
}

/// A node as the batch carries it.
pub(crate) fn schema_node_out(n: SchemaNode) -> packed::SchemaNode {
    packed::SchemaNode {
        type_: type_out(n.ty),
        optional: n.optional,
        name: n.name,
        version: n.version,
        doc: n.doc,
        parameters: n.parameters,
        default: n.default,
        children: n.children,
        field_names: n.field_names,
    }
}

/// A node as copycat-data reads it.
pub(crate) fn schema_node_in(n: packed::SchemaNode) -> SchemaNode {
    SchemaNode {
        ty: type_in(n.type_),
        optional: n.optional,
        name: n.name,
        version: n.version,
        doc: n.doc,
        parameters: n.parameters,
        default: n.default,
        children: n.children,
        field_names: n.field_names,
    }
}
