//! Typed values across the component boundary (contract 0.3.0,
//! wit/connector@0.3.0/batch.wit): schemas (Kafka Connect's data model),
//! the table of schema nodes a batch carries, and the value encoding,
//! bit-exact with the host's (`copycat-data`'s `wire` module):
//!
//! | schema | bytes |
//! |---|---|
//! | optional (any type) | 1 byte: 0 null (nothing follows) or 1, then the value |
//! | int8, boolean | 1 byte (boolean 0 or 1) |
//! | int16 / int32 / int64 | 2 / 4 / 8 bytes, little-endian two's complement |
//! | float32 / float64 | 4 / 8 bytes, IEEE 754 little-endian |
//! | string, bytes | u32 length, then the bytes |
//! | Decimal (bytes) | its unscaled value's big-endian two's complement, as bytes |
//! | array | u32 count, then the elements |
//! | map | u32 count, then key, value, key, value, ... |
//! | struct | its fields in order |
//!
//! Schemaless values carry a tag byte before each value (0 null, 1 int8,
//! 2 int16, 3 int32, 4 int64, 5 float32, 6 float64, 7 boolean, 8 string,
//! 9 bytes, 10 array, 11 map); structs and decimals need a schema.
//!
//! Writing: `Schema` (declared as constants, built with the functions
//! below, or derived from a Zig type at compile time with `schemaOf`), a
//! `Table` that flattens schemas into nodes, a `Writer` that encodes a
//! value under a node and checks it fits, and `encodeOf` that encodes a Zig
//! value under its derived schema with no checks left to do at run time.
//! Reading: `SchemaRef` (a node of a batch's table), `decode` into a
//! `Value` tree (allocated from the allocator you pass, usually an arena),
//! and `writeJson`.
//!
//! Pure Zig: `zig test guest-sdk/zig/src/wire.zig` runs its tests natively.

const std = @import("std");
const abi = @import("abi.zig");
const Allocator = std.mem.Allocator;

/// Deepest nesting of schemas and schemaless values (the host's limit).
pub const max_depth = 100;

/// Kafka Connect's `Schema.Type`, in the order of batch.wit's `schema-type`.
pub const Type = enum(u8) { int8, int16, int32, int64, float32, float64, boolean, string, bytes, array, map, @"struct" };

pub const Error = error{
    OutOfMemory,
    /// A value that does not fit its schema (or a schema the host would
    /// refuse); `detail()` says how.
    Mismatch,
    /// Bytes that do not decode under their schema; `detail()` says how.
    Malformed,
};

var detail_buf: [320]u8 = undefined;
var detail_len: usize = 0;

/// Why the latest `error.Mismatch` or `error.Malformed` happened.
pub fn detail() []const u8 {
    return detail_buf[0..detail_len];
}

fn fail(e: Error, comptime fmt: []const u8, args: anytype) Error {
    detail_len = if (std.fmt.bufPrint(&detail_buf, fmt, args)) |s| s.len else |_| detail_buf.len;
    return e;
}

/// Set the text `detail()` returns (the batch builder's errors).
pub fn setDetail(text: []const u8) void {
    const n = @min(text.len, detail_buf.len);
    std.mem.copyForwards(u8, detail_buf[0..n], text[0..n]);
    detail_len = n;
}

// ---------------------------------------------------------------------------
// Schemas

pub const Field = struct {
    name: []const u8,
    schema: *const Schema,
};

/// A schema (Kafka Connect's `Schema`). Declare one as a constant:
///
///     const point: cc.Schema = .structure("com.example.Point", &.{
///         .{ .name = "x", .schema = &cc.Schema.int32 },
///         .{ .name = "y", .schema = &cc.Schema.optional_int32 },
///     });
///
/// or derive one from a Zig type with `cc.schemaOf(T)`. A batch refers to
/// schemas by address: keep them alive (constants are) while you build.
pub const Schema = struct {
    type: Type,
    optional: bool = false,
    name: ?[]const u8 = null,
    version: ?i32 = null,
    doc: ?[]const u8 = null,
    /// (key, value) pairs, in order.
    parameters: []const [2][]const u8 = &.{},
    /// The default value, encoded under this schema (use `encodeOf`).
    default: ?[]const u8 = null,
    /// Struct: its fields, in order.
    fields: []const Field = &.{},
    /// Map: the key schema.
    key_schema: ?*const Schema = null,
    /// Map: the value schema; array: the element schema.
    value_schema: ?*const Schema = null,

    pub const int8: Schema = .{ .type = .int8 };
    pub const int16: Schema = .{ .type = .int16 };
    pub const int32: Schema = .{ .type = .int32 };
    pub const int64: Schema = .{ .type = .int64 };
    pub const float32: Schema = .{ .type = .float32 };
    pub const float64: Schema = .{ .type = .float64 };
    pub const boolean: Schema = .{ .type = .boolean };
    pub const string: Schema = .{ .type = .string };
    pub const bytes: Schema = .{ .type = .bytes };
    pub const optional_int8: Schema = .{ .type = .int8, .optional = true };
    pub const optional_int16: Schema = .{ .type = .int16, .optional = true };
    pub const optional_int32: Schema = .{ .type = .int32, .optional = true };
    pub const optional_int64: Schema = .{ .type = .int64, .optional = true };
    pub const optional_float32: Schema = .{ .type = .float32, .optional = true };
    pub const optional_float64: Schema = .{ .type = .float64, .optional = true };
    pub const optional_boolean: Schema = .{ .type = .boolean, .optional = true };
    pub const optional_string: Schema = .{ .type = .string, .optional = true };
    pub const optional_bytes: Schema = .{ .type = .bytes, .optional = true };

    pub const decimal_name = "org.apache.kafka.connect.data.Decimal";
    pub const date_name = "org.apache.kafka.connect.data.Date";
    pub const time_name = "org.apache.kafka.connect.data.Time";
    pub const timestamp_name = "org.apache.kafka.connect.data.Timestamp";

    /// Days since 1970-01-01 (int32).
    pub const date: Schema = .{ .type = .int32, .name = date_name, .version = 1 };
    /// Milliseconds of the day (int32).
    pub const time: Schema = .{ .type = .int32, .name = time_name, .version = 1 };
    /// Milliseconds since the epoch (int64).
    pub const timestamp: Schema = .{ .type = .int64, .name = timestamp_name, .version = 1 };

    /// A Decimal of `scale`: its unscaled value's big-endian two's
    /// complement, written with `Writer.bytes`.
    pub fn decimal(comptime scale: i32) Schema {
        return .{ .type = .bytes, .name = decimal_name, .version = 1, .parameters = &.{.{ "scale", std.fmt.comptimePrint("{d}", .{scale}) }} };
    }

    pub fn structure(name: ?[]const u8, fields: []const Field) Schema {
        return .{ .type = .@"struct", .name = name, .fields = fields };
    }

    pub fn array(element: *const Schema) Schema {
        return .{ .type = .array, .value_schema = element };
    }

    pub fn map(key: *const Schema, value: *const Schema) Schema {
        return .{ .type = .map, .key_schema = key, .value_schema = value };
    }

    /// A copy that accepts null.
    pub fn optionalOf(s: Schema) Schema {
        var o = s;
        o.optional = true;
        return o;
    }
};

/// A `bytes` field or value in a type given to `schemaOf` (a `[]const u8`
/// is a `string`).
pub const Bytes = struct { bytes: []const u8 };

/// The schema of Zig type `T`, derived at compile time:
/// i8/i16/i32/i64 -> int8..int64, f32/f64 -> float32/float64, bool ->
/// boolean, []const u8 -> string, `Bytes` -> bytes, ?T -> optional,
/// []const T -> array, a struct -> struct with its fields in declaration
/// order (named by its `pub const connect_name` if it declares one).
pub fn schemaOf(comptime T: type) *const Schema {
    const Holder = struct {
        const schema: Schema = derive(T);
    };
    return &Holder.schema;
}

fn derive(comptime T: type) Schema {
    return switch (@typeInfo(T)) {
        .int => |i| blk: {
            if (i.signedness != .signed) @compileError("schemaOf: Kafka Connect integers are signed; use i8/i16/i32/i64, not " ++ @typeName(T));
            break :blk switch (i.bits) {
                8 => Schema.int8,
                16 => Schema.int16,
                32 => Schema.int32,
                64 => Schema.int64,
                else => @compileError("schemaOf: no Kafka Connect type for " ++ @typeName(T)),
            };
        },
        .float => |f| switch (f.bits) {
            32 => Schema.float32,
            64 => Schema.float64,
            else => @compileError("schemaOf: no Kafka Connect type for " ++ @typeName(T)),
        },
        .bool => Schema.boolean,
        .optional => |o| Schema.optionalOf(derive(o.child)),
        .pointer => |p| blk: {
            if (p.size != .slice) @compileError("schemaOf: only slices, not " ++ @typeName(T));
            if (p.child == u8) break :blk Schema.string;
            break :blk Schema.array(schemaOf(p.child));
        },
        .@"struct" => |s| blk: {
            if (T == Bytes) break :blk Schema.bytes;
            var fields: [s.field_names.len]Field = undefined;
            for (s.field_names, s.field_types, 0..) |fname, ftype, i| fields[i] = .{ .name = fname, .schema = schemaOf(ftype) };
            const final = fields;
            const name: ?[]const u8 = if (@hasDecl(T, "connect_name")) T.connect_name else null;
            break :blk Schema.structure(name, &final);
        },
        else => @compileError("schemaOf: no Kafka Connect type for " ++ @typeName(T)),
    };
}

/// Append `v`'s encoding under `schemaOf(T)` to `out`. Everything is
/// known at compile time; nothing is checked at run time.
pub fn encodeOf(comptime T: type, v: T, out: *std.ArrayList(u8), gpa: Allocator) error{OutOfMemory}!void {
    switch (@typeInfo(T)) {
        .int => {
            try out.ensureUnusedCapacity(gpa, @sizeOf(T));
            std.mem.writeInt(T, (out.items.ptr + out.items.len)[0..@sizeOf(T)], v, .little);
            out.items.len += @sizeOf(T);
        },
        .float => try encodeOf(@Int(.unsigned, @bitSizeOf(T)), @bitCast(v), out, gpa),
        .bool => try out.append(gpa, @intFromBool(v)),
        .optional => |o| if (v) |x| {
            try out.append(gpa, 1);
            try encodeOf(o.child, x, out, gpa);
        } else try out.append(gpa, 0),
        .pointer => |p| {
            if (p.child == u8) return appendBytes(out, gpa, v);
            try appendU32(out, gpa, v.len);
            for (v) |item| try encodeOf(p.child, item, out, gpa);
        },
        .@"struct" => |s| {
            if (T == Bytes) return appendBytes(out, gpa, v.bytes);
            inline for (s.field_names, s.field_types) |fname, ftype| try encodeOf(ftype, @field(v, fname), out, gpa);
        },
        else => @compileError("encodeOf: no Kafka Connect type for " ++ @typeName(T)),
    }
}

fn appendU32(out: *std.ArrayList(u8), gpa: Allocator, n: usize) error{OutOfMemory}!void {
    const v: u32 = std.math.cast(u32, n) orelse return error.OutOfMemory;
    try out.appendSlice(gpa, std.mem.asBytes(&std.mem.nativeToLittle(u32, v)));
}

fn appendBytes(out: *std.ArrayList(u8), gpa: Allocator, b: []const u8) error{OutOfMemory}!void {
    const n: u32 = std.math.cast(u32, b.len) orelse return error.OutOfMemory;
    try out.ensureUnusedCapacity(gpa, 4 + b.len);
    const dst = out.items.ptr + out.items.len;
    std.mem.writeInt(u32, dst[0..4], n, .little);
    @import("batch.zig").copySmall(dst + 4, b);
    out.items.len += 4 + b.len;
}

// ---------------------------------------------------------------------------
// The node table

/// Flattens schemas into batch.wit's `schema-node` list, children first; a
/// schema met again (by address) reuses its nodes. Node lists and strings
/// point into the schemas and into the table's arena.
pub const Table = struct {
    arena: std.heap.ArenaAllocator,
    nodes: std.ArrayList(abi.SchemaNode) = .empty,
    seen: std.ArrayList(Seen) = .empty,

    const Seen = struct { schema: *const Schema, index: u32 };

    pub fn init(gpa: Allocator) Table {
        return .{ .arena = .init(gpa) };
    }

    pub fn deinit(self: *Table) void {
        const gpa = self.arena.child_allocator;
        self.nodes.deinit(gpa);
        self.seen.deinit(gpa);
        self.arena.deinit();
    }

    /// Forget every node (keeping the memory).
    pub fn reset(self: *Table) void {
        self.nodes.clearRetainingCapacity();
        self.seen.clearRetainingCapacity();
        _ = self.arena.reset(.retain_capacity);
    }

    /// The root node of `schema`, added if new.
    pub fn add(self: *Table, schema: *const Schema) Error!u32 {
        // Roots are added last: look from the end.
        var i = self.seen.items.len;
        while (i > 0) {
            i -= 1;
            if (self.seen.items[i].schema == schema) return self.seen.items[i].index;
        }
        return self.addAt(schema, 0);
    }

    fn addAt(self: *Table, s: *const Schema, depth: usize) Error!u32 {
        if (depth > max_depth) return fail(error.Mismatch, "schema nested deeper than {d}", .{max_depth});
        for (self.seen.items) |x| if (x.schema == s) return x.index;
        const gpa = self.arena.child_allocator;
        const a = self.arena.allocator();
        var node: abi.SchemaNode = .{ .type = @backingInt(s.type), .optional = s.optional };
        switch (s.type) {
            .array => {
                const c = try a.alloc(u32, 1);
                c[0] = try self.addAt(s.value_schema orelse return fail(error.Mismatch, "an array schema without its element schema", .{}), depth + 1);
                node.children = .of(c);
            },
            .map => {
                const c = try a.alloc(u32, 2);
                c[0] = try self.addAt(s.key_schema orelse return fail(error.Mismatch, "a map schema without its key schema", .{}), depth + 1);
                c[1] = try self.addAt(s.value_schema orelse return fail(error.Mismatch, "a map schema without its value schema", .{}), depth + 1);
                node.children = .of(c);
            },
            .@"struct" => {
                const c = try a.alloc(u32, s.fields.len);
                const names = try a.alloc(abi.Str, s.fields.len);
                for (s.fields, 0..) |f, i| {
                    for (s.fields[0..i]) |g| if (std.mem.eql(u8, g.name, f.name))
                        return fail(error.Mismatch, "struct {s} has two fields named {s}", .{ s.name orelse "(unnamed)", f.name });
                    c[i] = try self.addAt(f.schema, depth + 1);
                    names[i] = abi.str(f.name);
                }
                node.children = .of(c);
                node.field_names = .of(names);
            },
            else => {},
        }
        if (s.name) |n| node.name = .some(abi.str(n));
        if (s.version) |v| node.version = .some(v);
        if (s.doc) |d| node.doc = .some(abi.str(d));
        if (s.parameters.len > 0) {
            const ps = try a.alloc(abi.Pair, s.parameters.len);
            for (s.parameters, ps) |p, *q| q.* = .{ .f0 = abi.str(p[0]), .f1 = abi.str(p[1]) };
            node.parameters = .of(ps);
        }
        if (s.default) |d| node.default = .some(abi.str(d));
        const index: u32 = @intCast(self.nodes.items.len);
        try self.nodes.append(gpa, node);
        try self.seen.append(gpa, .{ .schema = s, .index = index });
        return index;
    }
};

// ---------------------------------------------------------------------------
// Writing a value under a node, checked

/// Encodes one value (a key, a value or a header value) under a node of a
/// table (or schemaless), checking that what you write fits: the right
/// type at each place, every struct field, as many items as declared.
/// Composite values are written with begin/end pairs:
///
///     try w.beginStruct();
///     try w.string("stream-0");
///     try w.int64(4);
///     try w.endStruct();
///
/// or in one call from a Zig value with `w.put(v)`.
pub const Writer = struct {
    out: *std.ArrayList(u8),
    gpa: Allocator,
    nodes: []const abi.SchemaNode,
    /// The root node; null: schemaless (tagged).
    root: ?u32,
    stack: [max_depth + 1]Frame = undefined,
    depth: usize = 0,
    started: bool = false,
    done: bool = false,

    const Frame = struct { node: u32, pos: u32, count: u32 };
    const dynamic_frame = std.math.maxInt(u32);

    pub fn init(out: *std.ArrayList(u8), gpa: Allocator, nodes: []const abi.SchemaNode, root: ?u32) Writer {
        return .{ .out = out, .gpa = gpa, .nodes = nodes, .root = root };
    }

    /// Whether a whole value has been written.
    pub fn complete(self: *const Writer) bool {
        return self.done and self.depth == 0;
    }

    /// The node the next value goes under (null: schemaless), moving on.
    fn slot(self: *Writer) Error!?u32 {
        if (self.depth == 0) {
            if (self.started) return fail(error.Mismatch, "a second value after the complete one", .{});
            self.started = true;
            return self.root;
        }
        const f = &self.stack[self.depth - 1];
        if (f.pos >= f.count) return fail(error.Mismatch, "more items than declared (or fields than the struct has): {d}", .{f.count});
        f.pos += 1;
        if (f.node == dynamic_frame) return null;
        const n = self.nodes[f.node];
        const c = n.children.slice();
        return switch (@as(Type, @fromBackingInt(@intCast(n.type)))) {
            .@"struct" => c[f.pos - 1],
            .array => c[0],
            else => c[(f.pos - 1) % 2],
        };
    }

    /// Start a non-null value of `ty` (schemaless tag `tag`).
    fn start(self: *Writer, ty: Type, tag: u8) Error!?u32 {
        const at = try self.slot();
        const i = at orelse {
            if (ty == .@"struct") return fail(error.Mismatch, "a struct needs a schema", .{});
            try self.out.append(self.gpa, tag);
            return null;
        };
        const n = self.nodes[i];
        if (n.type != @backingInt(ty)) return fail(error.Mismatch, "a {s} value for a {s} schema{s}{s}", .{
            @tagName(ty), @tagName(@as(Type, @fromBackingInt(@intCast(n.type)))), if (n.name.is_some) " " else "", if (n.name.is_some) n.name.val.slice() else "",
        });
        if (n.optional) try self.out.append(self.gpa, 1);
        return i;
    }

    fn raw(self: *Writer, comptime T: type, v: T) Error!void {
        try self.out.appendSlice(self.gpa, std.mem.asBytes(&std.mem.nativeToLittle(T, v)));
        self.wrote();
    }

    /// A value is complete: at the top, the whole value is.
    fn wrote(self: *Writer) void {
        if (self.depth == 0) self.done = true;
    }

    pub fn int8(self: *Writer, v: i8) Error!void {
        _ = try self.start(.int8, 1);
        try self.out.append(self.gpa, @bitCast(v));
        self.wrote();
    }
    pub fn int16(self: *Writer, v: i16) Error!void {
        _ = try self.start(.int16, 2);
        try self.raw(i16, v);
    }
    pub fn int32(self: *Writer, v: i32) Error!void {
        _ = try self.start(.int32, 3);
        try self.raw(i32, v);
    }
    pub fn int64(self: *Writer, v: i64) Error!void {
        _ = try self.start(.int64, 4);
        try self.raw(i64, v);
    }
    pub fn float32(self: *Writer, v: f32) Error!void {
        _ = try self.start(.float32, 5);
        try self.raw(f32, v);
    }
    pub fn float64(self: *Writer, v: f64) Error!void {
        _ = try self.start(.float64, 6);
        try self.raw(f64, v);
    }
    pub fn boolean(self: *Writer, v: bool) Error!void {
        _ = try self.start(.boolean, 7);
        try self.out.append(self.gpa, @intFromBool(v));
        self.wrote();
    }
    /// A string (UTF-8).
    pub fn string(self: *Writer, s: []const u8) Error!void {
        if (!std.unicode.utf8ValidateSlice(s)) return fail(error.Mismatch, "a string that is not UTF-8", .{});
        _ = try self.start(.string, 8);
        try appendBytes(self.out, self.gpa, s);
        self.wrote();
    }
    /// Bytes (a Decimal's unscaled value too).
    pub fn bytes(self: *Writer, b: []const u8) Error!void {
        _ = try self.start(.bytes, 9);
        try appendBytes(self.out, self.gpa, b);
        self.wrote();
    }
    /// A null, where the schema is optional (or schemaless).
    pub fn writeNull(self: *Writer) Error!void {
        const at = try self.slot();
        const i = at orelse {
            try self.out.append(self.gpa, 0);
            return self.wrote();
        };
        const n = self.nodes[i];
        if (!n.optional) return fail(error.Mismatch, "null for a required {s} schema{s}{s}", .{
            @tagName(@as(Type, @fromBackingInt(@intCast(n.type)))), if (n.name.is_some) " " else "", if (n.name.is_some) n.name.val.slice() else "",
        });
        try self.out.append(self.gpa, 0);
        self.wrote();
    }

    pub fn beginStruct(self: *Writer) Error!void {
        const i = (try self.start(.@"struct", 0)).?;
        try self.push(i, @intCast(self.nodes[i].children.len));
    }
    pub fn endStruct(self: *Writer) Error!void {
        return self.pop(.@"struct");
    }
    /// An array of `count` items; write them, then `endArray`.
    pub fn beginArray(self: *Writer, count: usize) Error!void {
        const i = try self.start(.array, 10);
        try appendU32(self.out, self.gpa, count);
        try self.push(i orelse dynamic_frame, std.math.cast(u32, count) orelse return error.OutOfMemory);
    }
    pub fn endArray(self: *Writer) Error!void {
        return self.pop(.array);
    }
    /// A map of `count` entries; write key, value, key, value..., then `endMap`.
    pub fn beginMap(self: *Writer, count: usize) Error!void {
        const i = try self.start(.map, 11);
        try appendU32(self.out, self.gpa, count);
        try self.push(i orelse dynamic_frame, std.math.cast(u32, count * 2) orelse return error.OutOfMemory);
    }
    pub fn endMap(self: *Writer) Error!void {
        return self.pop(.map);
    }

    fn push(self: *Writer, node: u32, count: u32) Error!void {
        if (self.depth >= max_depth) return fail(error.Mismatch, "value nested deeper than {d}", .{max_depth});
        self.stack[self.depth] = .{ .node = node, .pos = 0, .count = count };
        self.depth += 1;
    }

    fn pop(self: *Writer, ty: Type) Error!void {
        if (self.depth == 0) return fail(error.Mismatch, "end of a {s} that was not begun", .{@tagName(ty)});
        const f = self.stack[self.depth - 1];
        const open: Type = if (f.node == dynamic_frame)
            (if (ty == .map) .map else .array) // checked by count below
        else
            @fromBackingInt(@intCast(self.nodes[f.node].type));
        if (open != ty) return fail(error.Mismatch, "end of a {s} inside a {s}", .{ @tagName(ty), @tagName(open) });
        if (f.pos != f.count) return fail(error.Mismatch, "a {s} ended after {d} of {d} items (fields)", .{ @tagName(ty), f.pos, f.count });
        self.depth -= 1;
        self.wrote();
    }

    /// Write a Zig value (the types `schemaOf` takes; a struct's fields in
    /// order, a null optional as null), checked against the schema.
    pub fn put(self: *Writer, v: anytype) Error!void {
        const T = @TypeOf(v);
        switch (@typeInfo(T)) {
            .int => |i| switch (i.bits) {
                8 => try self.int8(v),
                16 => try self.int16(v),
                32 => try self.int32(v),
                64 => try self.int64(v),
                else => @compileError("put: no Kafka Connect type for " ++ @typeName(T)),
            },
            .comptime_int => try self.int64(v),
            .float => |f| if (f.bits == 32) try self.float32(v) else try self.float64(v),
            .bool => try self.boolean(v),
            .optional => if (v) |x| try self.put(x) else try self.writeNull(),
            .null => try self.writeNull(),
            .pointer => |p| {
                if (p.size == .one) return self.put(v.*); // string literals, arrays
                if (p.child == u8) return self.string(v);
                try self.beginArray(v.len);
                for (v) |item| try self.put(item);
                try self.endArray();
            },
            .array => |a| {
                if (a.child == u8) return self.string(&v);
                try self.beginArray(v.len);
                for (v) |item| try self.put(item);
                try self.endArray();
            },
            .@"struct" => |s| {
                if (T == Bytes) return self.bytes(v.bytes);
                if (T == Value) return self.value(v);
                try self.beginStruct();
                inline for (s.field_names) |fname| try self.put(@field(v, fname));
                try self.endStruct();
            },
            .@"union" => if (T == Value) try self.value(v) else @compileError("put: no Kafka Connect type for " ++ @typeName(T)),
            else => @compileError("put: no Kafka Connect type for " ++ @typeName(T)),
        }
    }

    /// Write a decoded `Value` (e.g. one a transform changed).
    pub fn value(self: *Writer, v: Value) Error!void {
        switch (v) {
            .null => try self.writeNull(),
            .int8 => |x| try self.int8(x),
            .int16 => |x| try self.int16(x),
            .int32 => |x| try self.int32(x),
            .int64 => |x| try self.int64(x),
            .float32 => |x| try self.float32(x),
            .float64 => |x| try self.float64(x),
            .boolean => |x| try self.boolean(x),
            .string => |x| try self.string(x),
            .bytes => |x| try self.bytes(x),
            .array => |items| {
                try self.beginArray(items.len);
                for (items) |x| try self.value(x);
                try self.endArray();
            },
            .map => |entries| {
                try self.beginMap(entries.len);
                for (entries) |e| {
                    try self.value(e.key);
                    try self.value(e.value);
                }
                try self.endMap();
            },
            .@"struct" => |fields| {
                try self.beginStruct();
                for (fields) |x| try self.value(x);
                try self.endStruct();
            },
        }
    }
};

// ---------------------------------------------------------------------------
// Reading

/// A decoded value. Strings and bytes point into the batch (valid for the
/// call); arrays, maps and structs into the allocator `decode` was given.
/// A struct's fields are in its schema's order (`SchemaRef.fieldName`);
/// a Decimal is its `bytes` (unscaled, big-endian), Date/Time int32,
/// Timestamp int64.
pub const Value = union(enum) {
    null,
    int8: i8,
    int16: i16,
    int32: i32,
    int64: i64,
    float32: f32,
    float64: f64,
    boolean: bool,
    string: []const u8,
    bytes: []const u8,
    array: []Value,
    map: []Entry,
    @"struct": []Value,
};

pub const Entry = struct { key: Value, value: Value };

/// A schema of a batch: node `index` of its table.
pub const SchemaRef = struct {
    nodes: []const abi.SchemaNode,
    index: u32,

    fn node(self: SchemaRef) *const abi.SchemaNode {
        return &self.nodes[self.index];
    }
    pub fn kind(self: SchemaRef) Type {
        return @fromBackingInt(@intCast(self.node().type));
    }
    pub fn isOptional(self: SchemaRef) bool {
        return self.node().optional;
    }
    pub fn name(self: SchemaRef) ?[]const u8 {
        const n = self.node();
        return if (n.name.is_some) n.name.val.slice() else null;
    }
    pub fn version(self: SchemaRef) ?i32 {
        const n = self.node();
        return if (n.version.is_some) n.version.val else null;
    }
    pub fn doc(self: SchemaRef) ?[]const u8 {
        const n = self.node();
        return if (n.doc.is_some) n.doc.val.slice() else null;
    }
    /// The value of parameter `key`.
    pub fn parameter(self: SchemaRef, key: []const u8) ?[]const u8 {
        for (self.node().parameters.slice()) |p| if (std.mem.eql(u8, p.f0.slice(), key)) return p.f1.slice();
        return null;
    }
    /// Struct: how many fields.
    pub fn fieldCount(self: SchemaRef) usize {
        return self.node().field_names.len;
    }
    pub fn fieldName(self: SchemaRef, i: usize) []const u8 {
        return self.node().field_names.slice()[i].slice();
    }
    pub fn field(self: SchemaRef, i: usize) SchemaRef {
        return .{ .nodes = self.nodes, .index = self.node().children.slice()[i] };
    }
    pub fn fieldIndex(self: SchemaRef, field_name: []const u8) ?usize {
        for (self.node().field_names.slice(), 0..) |n, i| if (std.mem.eql(u8, n.slice(), field_name)) return i;
        return null;
    }
    /// Array: the element schema; map: the value schema.
    pub fn valueSchema(self: SchemaRef) SchemaRef {
        const c = self.node().children.slice();
        return .{ .nodes = self.nodes, .index = c[c.len - 1] };
    }
    /// Map: the key schema.
    pub fn keySchema(self: SchemaRef) SchemaRef {
        return .{ .nodes = self.nodes, .index = self.node().children.slice()[0] };
    }
};

/// Check a table from the host before reading with it: every node refers
/// only to earlier ones, with the right number of children.
pub fn checkTable(nodes: []const abi.SchemaNode) Error!void {
    for (nodes, 0..) |n, i| {
        if (n.type > @backingInt(Type.@"struct")) return fail(error.Malformed, "schema node {d} has type {d}", .{ i, n.type });
        const want: usize = switch (@as(Type, @fromBackingInt(@intCast(n.type)))) {
            .array => 1,
            .map => 2,
            .@"struct" => n.field_names.len,
            else => 0,
        };
        if (n.children.len != want) return fail(error.Malformed, "schema node {d} has {d} children", .{ i, n.children.len });
        for (n.children.slice()) |c| if (c >= i) return fail(error.Malformed, "schema node {d} refers to node {d}", .{ i, c });
    }
}

const Reader = struct {
    bytes: []const u8,
    pos: usize = 0,
    nodes: []const abi.SchemaNode,
    gpa: Allocator,

    fn take(self: *Reader, n: usize) Error![]const u8 {
        if (self.bytes.len - self.pos < n) return fail(error.Malformed, "{d} bytes needed at byte {d} of {d}", .{ n, self.pos, self.bytes.len });
        const s = self.bytes[self.pos .. self.pos + n];
        self.pos += n;
        return s;
    }

    fn int(self: *Reader, comptime T: type) Error!T {
        const s = try self.take(@sizeOf(T));
        return std.mem.readInt(@Int(.unsigned, @bitSizeOf(T)), s[0..@sizeOf(T)], .little);
    }

    fn scalar(self: *Reader, comptime T: type) Error!T {
        const U = @Int(.unsigned, @bitSizeOf(T));
        return @bitCast(try self.int(U));
    }

    fn count(self: *Reader, min_each: usize) Error!usize {
        const n = try self.int(u32);
        // Every item takes at least `min_each` bytes (a struct of no
        // fields none: bounded by the bytes left plus the host's spare).
        if (min_each > 0 and n > (self.bytes.len - self.pos) / min_each) return fail(error.Malformed, "a count of {d} with {d} bytes left", .{ n, self.bytes.len - self.pos });
        if (n > self.bytes.len + 4096) return fail(error.Malformed, "a count of {d}", .{n});
        return n;
    }

    fn lengthPrefixed(self: *Reader) Error![]const u8 {
        const n = try self.int(u32);
        return self.take(n);
    }

    fn value(self: *Reader, index: u32, depth: usize) Error!Value {
        if (depth > max_depth) return fail(error.Malformed, "value nested deeper than {d}", .{max_depth});
        if (index >= self.nodes.len) return fail(error.Malformed, "no schema node {d}", .{index});
        const n = self.nodes[index];
        if (n.optional) switch ((try self.take(1))[0]) {
            0 => return .null,
            1 => {},
            else => |b| return fail(error.Malformed, "presence byte {d} at byte {d}", .{ b, self.pos - 1 }),
        };
        const c = n.children.slice();
        return switch (@as(Type, @fromBackingInt(@intCast(n.type)))) {
            .int8 => .{ .int8 = try self.scalar(i8) },
            .int16 => .{ .int16 = try self.scalar(i16) },
            .int32 => .{ .int32 = try self.scalar(i32) },
            .int64 => .{ .int64 = try self.scalar(i64) },
            .float32 => .{ .float32 = try self.scalar(f32) },
            .float64 => .{ .float64 = try self.scalar(f64) },
            .boolean => switch ((try self.take(1))[0]) {
                0 => .{ .boolean = false },
                1 => .{ .boolean = true },
                else => |b| fail(error.Malformed, "boolean byte {d}", .{b}),
            },
            .string => .{ .string = try self.lengthPrefixed() },
            .bytes => .{ .bytes = try self.lengthPrefixed() },
            .array => blk: {
                const items = try self.gpa.alloc(Value, try self.count(1));
                for (items) |*x| x.* = try self.value(c[0], depth + 1);
                break :blk .{ .array = items };
            },
            .map => blk: {
                const entries = try self.gpa.alloc(Entry, try self.count(1));
                for (entries) |*e| e.* = .{ .key = try self.value(c[0], depth + 1), .value = try self.value(c[1], depth + 1) };
                break :blk .{ .map = entries };
            },
            .@"struct" => blk: {
                const fields = try self.gpa.alloc(Value, c.len);
                for (fields, c) |*x, ci| x.* = try self.value(ci, depth + 1);
                break :blk .{ .@"struct" = fields };
            },
        };
    }

    fn dynamic(self: *Reader, depth: usize) Error!Value {
        if (depth > max_depth) return fail(error.Malformed, "value nested deeper than {d}", .{max_depth});
        return switch ((try self.take(1))[0]) {
            0 => .null,
            1 => .{ .int8 = try self.scalar(i8) },
            2 => .{ .int16 = try self.scalar(i16) },
            3 => .{ .int32 = try self.scalar(i32) },
            4 => .{ .int64 = try self.scalar(i64) },
            5 => .{ .float32 = try self.scalar(f32) },
            6 => .{ .float64 = try self.scalar(f64) },
            7 => switch ((try self.take(1))[0]) {
                0 => .{ .boolean = false },
                1 => .{ .boolean = true },
                else => |b| fail(error.Malformed, "boolean byte {d}", .{b}),
            },
            8 => .{ .string = try self.lengthPrefixed() },
            9 => .{ .bytes = try self.lengthPrefixed() },
            10 => blk: {
                const items = try self.gpa.alloc(Value, try self.count(1));
                for (items) |*x| x.* = try self.dynamic(depth + 1);
                break :blk .{ .array = items };
            },
            11 => blk: {
                const entries = try self.gpa.alloc(Entry, try self.count(2));
                for (entries) |*e| e.* = .{ .key = try self.dynamic(depth + 1), .value = try self.dynamic(depth + 1) };
                break :blk .{ .map = entries };
            },
            else => |t| fail(error.Malformed, "schemaless tag {d} at byte {d}", .{ t, self.pos - 1 }),
        };
    }

    fn finish(self: *Reader) Error!void {
        if (self.pos != self.bytes.len) return fail(error.Malformed, "{d} bytes left over after the value", .{self.bytes.len - self.pos});
    }
};

/// The value `bytes` encode under `schema`; every byte must be used.
/// Composite values are allocated from `gpa` (pass an arena).
pub fn decode(gpa: Allocator, schema: SchemaRef, bytes: []const u8) Error!Value {
    var r: Reader = .{ .bytes = bytes, .nodes = schema.nodes, .gpa = gpa };
    const v = try r.value(schema.index, 0);
    try r.finish();
    return v;
}

/// The schemaless value `bytes` encode.
pub fn decodeDynamic(gpa: Allocator, bytes: []const u8) Error!Value {
    var r: Reader = .{ .bytes = bytes, .nodes = &.{}, .gpa = gpa };
    const v = try r.dynamic(0);
    try r.finish();
    return v;
}

// ---------------------------------------------------------------------------
// JSON

/// Append `v` as compact JSON: a struct as an object with its fields in
/// schema order, a map as an object (a string key as is, any other key as
/// its compact JSON text), bytes as standard base64 with padding, strings
/// escaped (`"`, `\`, control characters), null as `null`.
pub fn writeJson(out: *std.ArrayList(u8), gpa: Allocator, schema: ?SchemaRef, v: Value) error{OutOfMemory}!void {
    switch (v) {
        .null => try out.appendSlice(gpa, "null"),
        .boolean => |b| try out.appendSlice(gpa, if (b) "true" else "false"),
        .int8 => |x| try out.print(gpa, "{d}", .{x}),
        .int16 => |x| try out.print(gpa, "{d}", .{x}),
        .int32 => |x| try out.print(gpa, "{d}", .{x}),
        .int64 => |x| try out.print(gpa, "{d}", .{x}),
        .float32 => |x| try out.print(gpa, "{d}", .{x}),
        .float64 => |x| try out.print(gpa, "{d}", .{x}),
        .string => |s| try jsonString(out, gpa, s),
        .bytes => |b| {
            const enc = std.base64.standard.Encoder;
            try out.append(gpa, '"');
            const dst = try out.addManyAsSlice(gpa, enc.calcSize(b.len));
            _ = enc.encode(dst, b);
            try out.append(gpa, '"');
        },
        .array => |items| {
            try out.append(gpa, '[');
            for (items, 0..) |x, i| {
                if (i > 0) try out.append(gpa, ',');
                try writeJson(out, gpa, if (schema) |s| s.valueSchema() else null, x);
            }
            try out.append(gpa, ']');
        },
        .map => |entries| {
            try out.append(gpa, '{');
            for (entries, 0..) |e, i| {
                if (i > 0) try out.append(gpa, ',');
                switch (e.key) {
                    .string => |k| try jsonString(out, gpa, k),
                    else => {
                        var text: std.ArrayList(u8) = .empty;
                        defer text.deinit(gpa);
                        try writeJson(&text, gpa, if (schema) |s| s.keySchema() else null, e.key);
                        try jsonString(out, gpa, text.items);
                    },
                }
                try out.append(gpa, ':');
                try writeJson(out, gpa, if (schema) |s| s.valueSchema() else null, e.value);
            }
            try out.append(gpa, '}');
        },
        .@"struct" => |fields| {
            try out.append(gpa, '{');
            for (fields, 0..) |x, i| {
                if (i > 0) try out.append(gpa, ',');
                if (schema) |s| try jsonString(out, gpa, s.fieldName(i)) else try out.print(gpa, "\"{d}\"", .{i});
                try out.append(gpa, ':');
                try writeJson(out, gpa, if (schema) |s| s.field(i) else null, x);
            }
            try out.append(gpa, '}');
        },
    }
}

/// Append `s` as a JSON string.
pub fn jsonString(out: *std.ArrayList(u8), gpa: Allocator, s: []const u8) error{OutOfMemory}!void {
    try out.ensureUnusedCapacity(gpa, s.len + 2);
    out.appendAssumeCapacity('"');
    for (s) |ch| switch (ch) {
        '"' => try out.appendSlice(gpa, "\\\""),
        '\\' => try out.appendSlice(gpa, "\\\\"),
        '\n' => try out.appendSlice(gpa, "\\n"),
        '\r' => try out.appendSlice(gpa, "\\r"),
        '\t' => try out.appendSlice(gpa, "\\t"),
        0x08 => try out.appendSlice(gpa, "\\b"),
        0x0c => try out.appendSlice(gpa, "\\f"),
        0...0x07, 0x0b, 0x0e...0x1f => try out.print(gpa, "\\u{x:0>4}", .{ch}),
        else => try out.append(gpa, ch),
    };
    try out.append(gpa, '"');
}
