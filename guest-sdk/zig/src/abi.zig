//! The canonical-ABI shapes of the batch types of `copycat:connector@0.3.0`
//! (batch.wit) and `copycat:transform@0.1.0`, as `wit-bindgen c` lays them
//! out: C structs of `{ptr, len}` lists. The SDK builds and reads batches
//! in these shapes directly, so a batch crosses the boundary without being
//! copied into other structures first. copycat.zig checks at compile time
//! that they match the generated bindings field for field.
//!
//! Pure Zig (no bindings), so the encoder and decoder are tested natively
//! with `zig test`.

const std = @import("std");

/// A WIT `list<T>` (and `string`: `List(u8)`): `ptr` is null when empty.
pub fn List(comptime T: type) type {
    return extern struct {
        ptr: ?[*]T = null,
        len: usize = 0,

        const Self = @This();

        pub fn of(items: []T) Self {
            return .{ .ptr = if (items.len == 0) null else items.ptr, .len = items.len };
        }

        pub fn ofConst(items: []const T) Self {
            return of(@constCast(items));
        }

        pub fn slice(self: Self) []T {
            if (self.len == 0) return &.{};
            return self.ptr.?[0..self.len];
        }
    };
}

pub const Str = List(u8);

pub fn str(s: []const u8) Str {
    return Str.ofConst(s);
}

pub fn Option(comptime T: type) type {
    return extern struct {
        is_some: bool = false,
        val: T = std.mem.zeroes(T),

        pub fn some(v: T) @This() {
            return .{ .is_some = true, .val = v };
        }
    };
}

pub const Pair = extern struct { f0: Str, f1: Str };

pub const SchemaNode = extern struct {
    type: u8,
    optional: bool = false,
    name: Option(Str) = .{},
    version: Option(i32) = .{},
    doc: Option(Str) = .{},
    parameters: List(Pair) = .{},
    default: Option(Str) = .{},
    children: List(u32) = .{},
    field_names: List(Str) = .{},
};

pub const SourcePosition = extern struct { partition: Str, offset: Str };

pub const SourceBatch = extern struct {
    data: List(u8) = .{},
    key_lengths: List(i32) = .{},
    value_lengths: List(i32) = .{},
    topics: List(Str) = .{},
    topic_indices: List(i32) = .{},
    partitions: List(i32) = .{},
    timestamps: List(i64) = .{},
    header_counts: List(u32) = .{},
    header_key_lengths: List(u32) = .{},
    header_value_lengths: List(i32) = .{},
    schemas: List(SchemaNode) = .{},
    key_schemas: List(i32) = .{},
    value_schemas: List(i32) = .{},
    header_schemas: List(i32) = .{},
    positions: List(SourcePosition) = .{},
};

pub const SinkBatch = extern struct {
    data: List(u8) = .{},
    key_lengths: List(i32) = .{},
    value_lengths: List(i32) = .{},
    topics: List(Str) = .{},
    topic_indices: List(u32) = .{},
    partitions: List(i32) = .{},
    offsets: List(i64) = .{},
    timestamps: List(i64) = .{},
    header_counts: List(u32) = .{},
    header_key_lengths: List(u32) = .{},
    header_value_lengths: List(i32) = .{},
    schemas: List(SchemaNode) = .{},
    key_schemas: List(i32) = .{},
    value_schemas: List(i32) = .{},
    header_schemas: List(i32) = .{},
};

/// `copycat:transform/transformer@0.1.0`'s `record-batch`.
pub const RecordBatch = extern struct {
    data: List(u8) = .{},
    key_lengths: List(i32) = .{},
    value_lengths: List(i32) = .{},
    topics: List(Str) = .{},
    topic_indices: List(u32) = .{},
    partitions: List(i32) = .{},
    timestamps: List(i64) = .{},
    offsets: List(i64) = .{},
    header_counts: List(u32) = .{},
    header_key_lengths: List(u32) = .{},
    header_value_lengths: List(i32) = .{},
    schemas: List(SchemaNode) = .{},
    key_schemas: List(i32) = .{},
    value_schemas: List(i32) = .{},
    header_schemas: List(i32) = .{},
    origins: List(u32) = .{},
};

/// Check that our shape `Ours` lays out like the bindings' `Theirs`:
/// same size, and each field at the same offset (by position).
pub fn assertSameLayout(comptime Ours: type, comptime Theirs: type) void {
    if (@sizeOf(Ours) != @sizeOf(Theirs)) @compileError("layout mismatch: " ++ @typeName(Ours) ++ " vs " ++ @typeName(Theirs));
    const a = @typeInfo(Ours).@"struct".field_names;
    const b = @typeInfo(Theirs).@"struct".field_names;
    if (a.len != b.len) @compileError("field count mismatch: " ++ @typeName(Ours));
    inline for (a, b) |fa, fb| {
        if (@offsetOf(Ours, fa) != @offsetOf(Theirs, fb)) @compileError("field offset mismatch: " ++ @typeName(Ours) ++ "." ++ fa);
    }
}

// The other shapes the SDK exchanges with the host.

pub const Config = List(Pair);
pub const ConfigProblem = extern struct { key: Str, message: Str };
pub const ConfigKey = extern struct {
    name: Str,
    type: u8,
    default_value: Option(Str) = .{},
    required: bool = false,
    doc: Str = .{},
    importance: u8 = 0,
};
pub const PluginInfo = extern struct { name: Str, version: Str, kind: u8, description: Str, config_def: List(ConfigKey) };
pub const TransformInfo = extern struct { name: Str, version: Str, description: Str, config_def: List(ConfigKey) };
/// `connector-error`: config, retriable, fatal (each a string).
pub const ConnectorError = extern struct { tag: u8, val: Str };
/// `transform-error`: config(string), record(tuple<u32, string>), fatal(string).
pub const TransformError = extern struct {
    tag: u8,
    val: extern union { text: Str, record: extern struct { f0: u32, f1: Str } },
};
pub const TopicPartition = extern struct { topic: Str, partition: i32 };
pub const TopicPartitionOffset = extern struct { topic: Str, partition: i32, offset: i64 };
/// `report-error`: unavailable, tolerance-exceeded, no-such-record(string).
pub const ReportError = extern struct { tag: u8, val: Str };
