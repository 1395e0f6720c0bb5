//! Batches (wit/connector@0.3.0/batch.wit, and the transform's
//! `record-batch`): a builder that packs records straight into the batch's
//! one byte buffer and its integer columns, and read-only views over a
//! batch the host hands in. The builder's buffers live from batch to batch
//! (cleared, never freed), and the SDK hands them to the canonical ABI as
//! they are: a poll of 1,000 records allocates nothing once the buffers
//! have grown to fit.
//!
//! Pure Zig: tested natively (src/tests.zig).

const std = @import("std");
const abi = @import("abi.zig");
const wire = @import("wire.zig");
const Allocator = std.mem.Allocator;

/// `-1` in a schema column: raw bytes.
pub const raw_code: i32 = -1;
/// `-2` in a schema column: a schemaless value.
pub const schemaless_code: i32 = -2;

pub const Error = wire.Error || error{
    /// A builder used out of order (a key after the value, a record
    /// begun before the last one ended); `detail()` says how.
    Usage,
};

/// Why the latest error of a builder, a view or a `wire.Writer` happened.
pub const detail = wire.detail;

fn fail(e: Error, comptime fmt: []const u8, args: anytype) Error {
    var buf: [320]u8 = undefined;
    wire.setDetail(std.fmt.bufPrint(&buf, fmt, args) catch &buf);
    return e;
}

fn wireFail(e: wire.Error, record: usize, what: []const u8) Error {
    return fail(e, "record {d} of the batch: {s}: {s}", .{ record, what, wire.detail() });
}

// ---------------------------------------------------------------------------
// Building

/// Raw bytes of the key, value or header value being written: they go
/// straight into the batch's buffer.
pub const Raw = struct {
    list: *std.ArrayList(u8),
    gpa: Allocator,
    start: usize,

    pub fn append(self: Raw, b: []const u8) error{OutOfMemory}!void {
        try appendFast(self.list, self.gpa, b);
    }
    pub fn byte(self: Raw, c: u8) error{OutOfMemory}!void {
        try self.list.append(self.gpa, c);
    }
    /// An integer in decimal, written in place (no formatting machinery,
    /// 32-bit arithmetic while it fits: wasm has no 64-bit multiply-high,
    /// so a 64-bit division by 10 is slow there).
    pub fn int(self: Raw, v: anytype) error{OutOfMemory}!void {
        try self.list.ensureUnusedCapacity(self.gpa, 20);
        const T = @TypeOf(v);
        const neg = switch (@typeInfo(T)) {
            .int => |i| i.signedness == .signed and v < 0,
            .comptime_int => v < 0,
            else => @compileError("int: an integer, not " ++ @typeName(T)),
        };
        var u: u64 = if (neg) @intCast(-@as(i128, v)) else @intCast(v);
        var at = self.list.items.len;
        if (neg) {
            self.list.items.ptr[at] = '-';
            at += 1;
        }
        const n = digitCount(u);
        var end = at + n;
        self.list.items.len = end;
        const out = self.list.items.ptr;
        while (u > std.math.maxInt(u32)) {
            const q = u / 100;
            const r: usize = @intCast(u - q * 100);
            end -= 2;
            out[end..][0..2].* = digit_pairs[2 * r ..][0..2].*;
            u = q;
        }
        var w: u32 = @intCast(u);
        while (w >= 100) {
            const q = w / 100;
            const r: usize = w - q * 100;
            end -= 2;
            out[end..][0..2].* = digit_pairs[2 * r ..][0..2].*;
            w = q;
        }
        if (w >= 10) {
            out[end - 2 ..][0..2].* = digit_pairs[2 * w ..][0..2].*;
        } else out[end - 1] = '0' + @as(u8, @intCast(w));
    }
    /// std.fmt formatting.
    pub fn print(self: Raw, comptime fmt: []const u8, args: anytype) error{OutOfMemory}!void {
        try self.list.print(self.gpa, fmt, args);
    }
    /// Append `c` until this part is `total` bytes long.
    pub fn padTo(self: Raw, total: usize, c: u8) error{OutOfMemory}!void {
        const have = self.len();
        if (have >= total) return;
        @memset(try self.list.addManyAsSlice(self.gpa, total - have), c);
    }
    /// Bytes written to this part so far.
    pub fn len(self: Raw) usize {
        return self.list.items.len - self.start;
    }
    /// The bytes written to this part so far (to change them in place).
    pub fn written(self: Raw) []u8 {
        return self.list.items[self.start..];
    }
};

/// Append `b` to `list`. Short slices (keys, numbers, names) are copied
/// with a few word-sized loads and stores: a `@memcpy` becomes wasm's
/// `memory.copy`, which wasmtime runs as a call into the runtime, costly
/// for a few bytes (docs/authoring/zig.md, "Performance").
pub inline fn appendFast(list: *std.ArrayList(u8), gpa: Allocator, b: []const u8) error{OutOfMemory}!void {
    try list.ensureUnusedCapacity(gpa, b.len);
    const dst = list.items.ptr + list.items.len;
    copySmall(dst, b);
    list.items.len += b.len;
}

/// Copy `src` to `dst` (not overlapping): overlapping word copies up to 32
/// bytes, `@memcpy` beyond.
pub inline fn copySmall(dst: [*]u8, src: []const u8) void {
    const n = src.len;
    const s = src.ptr;
    if (n > 32) {
        @memcpy(dst[0..n], src);
    } else if (n >= 16) {
        const a = std.mem.readInt(u128, s[0..16], .little);
        const z = std.mem.readInt(u128, s[n - 16 ..][0..16], .little);
        std.mem.writeInt(u128, dst[0..16], a, .little);
        std.mem.writeInt(u128, dst[n - 16 ..][0..16], z, .little);
    } else if (n >= 8) {
        const a = std.mem.readInt(u64, s[0..8], .little);
        const z = std.mem.readInt(u64, s[n - 8 ..][0..8], .little);
        std.mem.writeInt(u64, dst[0..8], a, .little);
        std.mem.writeInt(u64, dst[n - 8 ..][0..8], z, .little);
    } else if (n >= 4) {
        const a = std.mem.readInt(u32, s[0..4], .little);
        const z = std.mem.readInt(u32, s[n - 4 ..][0..4], .little);
        std.mem.writeInt(u32, dst[0..4], a, .little);
        std.mem.writeInt(u32, dst[n - 4 ..][0..4], z, .little);
    } else if (n > 0) {
        dst[0] = s[0];
        dst[n / 2] = s[n / 2];
        dst[n - 1] = s[n - 1];
    }
}

const digit_pairs: *const [200]u8 = blk: {
    var t: [200]u8 = undefined;
    for (0..100) |i| {
        t[2 * i] = '0' + i / 10;
        t[2 * i + 1] = '0' + i % 10;
    }
    const final = t;
    break :blk &final;
};

fn digitCount(u: u64) usize {
    var n: usize = 1;
    var p: u64 = 10;
    while (n < 20 and u >= p) : (n += 1) p *%= 10;
    return n;
}

/// `v` in decimal, in `buf`.
pub fn decimal(buf: *[24]u8, v: anytype) []const u8 {
    const T = @TypeOf(v);
    const neg = switch (@typeInfo(T)) {
        .int => |i| i.signedness == .signed and v < 0,
        .comptime_int => v < 0,
        else => @compileError("decimal: an integer, not " ++ @typeName(T)),
    };
    var u: u64 = if (neg) @intCast(-@as(i128, v)) else @intCast(v);
    var i: usize = buf.len;
    while (true) {
        i -= 1;
        buf[i] = @intCast('0' + u % 10);
        u /= 10;
        if (u == 0) break;
    }
    if (neg) {
        i -= 1;
        buf[i] = '-';
    }
    return buf[i..];
}

/// Where a record goes (sources): every field optional.
pub const RecordOptions = struct {
    /// null: the connector's `topic`.
    topic: ?[]const u8 = null,
    /// null: the producer's partitioner chooses.
    partition: ?i32 = null,
    /// Milliseconds since the epoch; null: Kafka stamps it.
    timestamp: ?i64 = null,
};

const Kind = enum { source, transform };

/// The columns of a batch being built, shared by the source builder and
/// the transform's output.
fn Columns(comptime kind: Kind) type {
    const dense = kind == .transform;
    return struct {
        gpa: Allocator,
        data: std.ArrayList(u8) = .empty,
        key_lengths: std.ArrayList(i32) = .empty,
        value_lengths: std.ArrayList(i32) = .empty,
        topics: std.ArrayList(abi.Str) = .empty,
        topic_indices: std.ArrayList(if (dense) u32 else i32) = .empty,
        partitions: std.ArrayList(i32) = .empty,
        timestamps: std.ArrayList(i64) = .empty,
        offsets: std.ArrayList(i64) = .empty, // transform only
        origins: std.ArrayList(u32) = .empty, // transform only
        header_counts: std.ArrayList(u32) = .empty,
        header_key_lengths: std.ArrayList(u32) = .empty,
        header_value_lengths: std.ArrayList(i32) = .empty,
        table: wire.Table,
        key_schemas: std.ArrayList(i32) = .empty,
        value_schemas: std.ArrayList(i32) = .empty,
        header_schemas: std.ArrayList(i32) = .empty,
        positions: std.ArrayList(abi.SourcePosition) = .empty, // source only
        /// Topic names and positions: stable until `clear`.
        text: std.heap.ArenaAllocator,
        cur: Record(kind) = .{},
        /// The typed part being written (one at a time).
        writer: wire.Writer = undefined,

        const Self = @This();

        pub fn init(gpa: Allocator) Self {
            return .{ .gpa = gpa, .table = .init(gpa), .text = .init(gpa) };
        }

        pub fn deinit(self: *Self) void {
            const gpa = self.gpa;
            inline for (.{ "data", "key_lengths", "value_lengths", "topics", "topic_indices", "partitions", "timestamps", "offsets", "origins", "header_counts", "header_key_lengths", "header_value_lengths", "key_schemas", "value_schemas", "header_schemas", "positions" }) |f|
                @field(self, f).deinit(gpa);
            self.table.deinit();
            self.text.deinit();
        }

        /// Empty the batch, keeping its memory for the next one.
        pub fn clear(self: *Self) void {
            inline for (.{ "data", "key_lengths", "value_lengths", "topics", "topic_indices", "partitions", "timestamps", "offsets", "origins", "header_counts", "header_key_lengths", "header_value_lengths", "key_schemas", "value_schemas", "header_schemas", "positions" }) |f|
                @field(self, f).clearRetainingCapacity();
            self.table.reset();
            _ = self.text.reset(.retain_capacity);
            self.cur = .{};
        }

        /// Records in the batch.
        pub fn len(self: *const Self) usize {
            return self.value_lengths.items.len;
        }

        /// Push `value` to an optional column that stays empty while every
        /// entry is `default`.
        inline fn pushOptional(self: *Self, comptime T: type, column: *std.ArrayList(T), entries: usize, value: T, default: T) error{OutOfMemory}!void {
            if (dense) return column.append(self.gpa, value);
            if (value != default and column.items.len < entries) {
                try column.ensureTotalCapacity(self.gpa, entries + 1);
                column.appendNTimesAssumeCapacity(default, entries - column.items.len);
            }
            if (column.items.len > 0 or value != default) try column.append(self.gpa, value);
        }

        fn topicIndex(self: *Self, name: []const u8) error{OutOfMemory}!usize {
            var i = self.topics.items.len;
            while (i > 0) {
                i -= 1;
                if (std.mem.eql(u8, self.topics.items[i].slice(), name)) return i;
            }
            const copy = try self.text.allocator().dupe(u8, name);
            try self.topics.append(self.gpa, abi.str(copy));
            return self.topics.items.len - 1;
        }
    };
}

/// The record being written into a batch (`begin` ... `end`). Write its
/// parts in the batch's order: the key, then the value, then the headers;
/// a part not written is null. On any error the record is taken back out
/// of the batch, as if never begun.
pub fn Record(comptime kind: Kind) type {
    return struct {
        cols: ?*Columns(kind) = null,
        phase: Phase = .idle,
        /// The part being written: where its bytes start, its schema code,
        /// whether a typed writer fills it.
        part_start: usize = 0,
        part_code: i32 = raw_code,
        part_typed: bool = false,
        key_len: i32 = -1,
        key_code: i32 = raw_code,
        headers: u32 = 0,
        topic: i64 = -1,
        partition: i32 = -1,
        timestamp: i64 = -1,
        offset: i64 = -1,
        origin: u32 = 0,
        marks: [4]usize = .{ 0, 0, 0, 0 },
        pending_value: struct { i32, i32 } = .{ -1, raw_code },
        part_null: bool = false,

        const Self = @This();
        /// In the order a record is written.
        const Phase = enum(u8) { idle, begun, key, value, after_value, header };

        fn index(self: *const Self) usize {
            return self.cols.?.len();
        }

        fn begin(self: *Self, cols: *Columns(kind)) void {
            // Field by field: cheaper than a struct literal copied in.
            self.cols = cols;
            self.phase = .begun;
            self.part_start = cols.data.items.len;
            self.part_code = raw_code;
            self.part_typed = false;
            self.part_null = false;
            self.key_len = -1;
            self.key_code = raw_code;
            self.headers = 0;
            self.topic = -1;
            self.partition = -1;
            self.timestamp = -1;
            self.offset = -1;
            self.origin = 0;
            self.pending_value = .{ -1, raw_code };
            self.marks = .{ cols.data.items.len, cols.header_key_lengths.items.len, cols.header_schemas.items.len, cols.table.nodes.items.len };
        }

        /// Take the record back out of the batch.
        pub fn cancel(self: *Self) void {
            const c = self.cols orelse return;
            c.data.shrinkRetainingCapacity(self.marks[0]);
            c.header_key_lengths.shrinkRetainingCapacity(self.marks[1]);
            c.header_value_lengths.shrinkRetainingCapacity(self.marks[1]);
            c.header_schemas.shrinkRetainingCapacity(@min(self.marks[2], c.header_schemas.items.len));
            const i = c.len();
            inline for (.{ "key_lengths", "topic_indices", "partitions", "timestamps", "offsets", "origins", "header_counts", "key_schemas", "value_schemas" }) |f|
                @field(c, f).shrinkRetainingCapacity(@min(i, @field(c, f).items.len));
            self.phase = .idle;
        }

        /// Close the part being written; returns its length (-1: null) and code.
        fn closePart(self: *Self) Error!struct { i32, i32 } {
            const c = self.cols.?;
            if (self.part_typed and !c.writer.complete())
                return fail(error.Usage, "record {d} of the batch: a typed part left incomplete (a struct, array or map not ended, or no value written)", .{self.index()});
            if (self.part_null) return .{ -1, self.part_code };
            const n = c.data.items.len - self.part_start;
            const l = std.math.cast(i32, n) orelse return fail(error.OutOfMemory, "record {d} of the batch: {d} bytes in one part", .{ self.index(), n });
            return .{ l, self.part_code };
        }

        /// Move on to part `next`, closing the one being written.
        fn advanceTo(self: *Self, next: Phase) Error!void {
            const c = self.cols orelse return fail(error.Usage, "a record part written before begin()", .{});
            switch (self.phase) {
                .idle => return fail(error.Usage, "a record part written before begin() or after end()", .{}),
                .begun => {},
                .key => {
                    const l, const code = try self.closePart();
                    self.key_len = l;
                    self.key_code = code;
                },
                .value => {
                    const l, const code = try self.closePart();
                    self.phase = .after_value;
                    try self.pushValue(l, code);
                },
                .header => {
                    const l, const code = try self.closePart();
                    try c.header_value_lengths.append(c.gpa, l);
                    try c.pushOptional(i32, &c.header_schemas, c.header_key_lengths.items.len - 1, code, raw_code);
                },
                .after_value => {},
            }
            const rank = struct {
                inline fn of(p: Phase) u8 {
                    return @backingInt(p);
                }
            }.of;
            if (next == .key and rank(self.phase) >= rank(.key)) return fail(error.Usage, "record {d} of the batch: the key after the value or headers (write the key first)", .{self.index()});
            if (next == .value and rank(self.phase) >= rank(.value)) return fail(error.Usage, "record {d} of the batch: a second value, or the value after the headers", .{self.index()});
            if (next == .header and rank(self.phase) < rank(.after_value)) {
                // The value was never written: a null value.
                if (self.phase == .begun or self.phase == .key) {
                    self.phase = .after_value;
                    try self.pushValue(-1, raw_code);
                }
            }
            self.phase = next;
            self.part_start = c.data.items.len;
            self.part_code = raw_code;
            self.part_typed = false;
            self.part_null = false;
        }

        /// The value's column entries are pushed as soon as it closes (the
        /// key's with it), the rest at `end`.
        fn pushValue(self: *Self, l: i32, code: i32) Error!void {
            self.pending_value = .{ l, code };
        }

        // -- key ------------------------------------------------------------

        /// The key as raw bytes, written through the returned `Raw`.
        pub fn key(self: *Self) Error!Raw {
            if (self.phase == .begun) { // the common case, straight
                const c = self.cols.?;
                self.phase = .key;
                self.part_start = c.data.items.len;
                return .{ .list = &c.data, .gpa = c.gpa, .start = self.part_start };
            }
            errdefer self.cancel();
            try self.advanceTo(.key);
            return self.rawPart();
        }
        pub fn keyBytes(self: *Self, b: []const u8) Error!void {
            const r = try self.key();
            r.append(b) catch |e| return self.failed(e);
        }
        /// A typed key under `schema`, written through the returned `Writer`.
        pub fn keyTyped(self: *Self, schema: *const wire.Schema) Error!*wire.Writer {
            errdefer self.cancel();
            try self.advanceTo(.key);
            return self.typedPart(schema);
        }
        /// A schemaless key, written through the returned `Writer`.
        pub fn keySchemaless(self: *Self) Error!*wire.Writer {
            errdefer self.cancel();
            try self.advanceTo(.key);
            return self.schemalessPart();
        }
        /// A typed key: `v` under `schemaOf(@TypeOf(v))`.
        pub fn keyOf(self: *Self, v: anytype) Error!void {
            errdefer self.cancel();
            try self.advanceTo(.key);
            try self.ofPart(@TypeOf(v), v);
        }
        /// A typed key under a schema of the input batch (transforms).
        pub fn keyUnder(self: *Self, schema: wire.SchemaRef) Error!*wire.Writer {
            errdefer self.cancel();
            try self.advanceTo(.key);
            return self.underPart(schema);
        }
        /// The key as `d` is (bytes and schema), e.g. an input record's.
        pub fn keyFrom(self: *Self, d: Data) Error!void {
            errdefer self.cancel();
            try self.advanceTo(.key);
            try self.fromPart(d);
        }

        // -- value ----------------------------------------------------------

        pub fn value(self: *Self) Error!Raw {
            if (self.phase == .key and !self.part_typed and !self.part_null) { // after a raw key, straight
                const c = self.cols.?;
                const n = c.data.items.len - self.part_start;
                if (n <= std.math.maxInt(i32)) {
                    self.key_len = @intCast(n);
                    self.key_code = raw_code;
                    self.phase = .value;
                    self.part_start = c.data.items.len;
                    return .{ .list = &c.data, .gpa = c.gpa, .start = self.part_start };
                }
            }
            errdefer self.cancel();
            try self.advanceTo(.value);
            return self.rawPart();
        }
        pub fn valueBytes(self: *Self, b: []const u8) Error!void {
            const r = try self.value();
            r.append(b) catch |e| return self.failed(e);
        }
        pub fn valueTyped(self: *Self, schema: *const wire.Schema) Error!*wire.Writer {
            errdefer self.cancel();
            try self.advanceTo(.value);
            return self.typedPart(schema);
        }
        pub fn valueSchemaless(self: *Self) Error!*wire.Writer {
            errdefer self.cancel();
            try self.advanceTo(.value);
            return self.schemalessPart();
        }
        pub fn valueOf(self: *Self, v: anytype) Error!void {
            errdefer self.cancel();
            try self.advanceTo(.value);
            try self.ofPart(@TypeOf(v), v);
        }
        pub fn valueUnder(self: *Self, schema: wire.SchemaRef) Error!*wire.Writer {
            errdefer self.cancel();
            try self.advanceTo(.value);
            return self.underPart(schema);
        }
        pub fn valueFrom(self: *Self, d: Data) Error!void {
            errdefer self.cancel();
            try self.advanceTo(.value);
            try self.fromPart(d);
        }
        /// A null of `schema` (a tombstone with a schema): `schema` must be
        /// optional or have a default.
        pub fn valueNullOf(self: *Self, schema: *const wire.Schema) Error!void {
            errdefer self.cancel();
            try self.advanceTo(.value);
            if (!schema.optional and schema.default == null)
                return fail(error.Mismatch, "record {d} of the batch: value: null for a required {s} schema without a default", .{ self.index(), @tagName(schema.type) });
            self.part_code = try self.schemaCode(schema);
            self.part_null = true;
        }

        // -- headers --------------------------------------------------------

        fn headerKey(self: *Self, k: []const u8) Error!void {
            try self.advanceTo(.header);
            const c = self.cols.?;
            if (k.len == 0) return fail(error.Usage, "record {d} of the batch: a header with an empty key", .{self.index()});
            try c.data.appendSlice(c.gpa, k);
            try c.header_key_lengths.append(c.gpa, @intCast(k.len));
            self.headers += 1;
            self.part_start = c.data.items.len;
        }
        /// A header with raw bytes (null: no value).
        pub fn headerBytes(self: *Self, k: []const u8, v: ?[]const u8) Error!void {
            errdefer self.cancel();
            try self.headerKey(k);
            const c = self.cols.?;
            if (v) |b| try c.data.appendSlice(c.gpa, b) else self.part_null = true;
        }
        pub fn headerTyped(self: *Self, k: []const u8, schema: *const wire.Schema) Error!*wire.Writer {
            errdefer self.cancel();
            try self.headerKey(k);
            return self.typedPart(schema);
        }
        pub fn headerSchemaless(self: *Self, k: []const u8) Error!*wire.Writer {
            errdefer self.cancel();
            try self.headerKey(k);
            return self.schemalessPart();
        }
        pub fn headerOf(self: *Self, k: []const u8, v: anytype) Error!void {
            errdefer self.cancel();
            try self.headerKey(k);
            try self.ofPart(@TypeOf(v), v);
        }
        pub fn headerFrom(self: *Self, k: []const u8, d: Data) Error!void {
            errdefer self.cancel();
            try self.headerKey(k);
            try self.fromPart(d);
        }

        // -- parts ----------------------------------------------------------

        fn failed(self: *Self, e: anyerror) Error {
            self.cancel();
            return switch (e) {
                error.OutOfMemory => error.OutOfMemory,
                else => error.Usage,
            };
        }

        fn rawPart(self: *Self) Raw {
            const c = self.cols.?;
            return .{ .list = &c.data, .gpa = c.gpa, .start = self.part_start };
        }

        fn schemaCode(self: *Self, schema: *const wire.Schema) Error!i32 {
            const c = self.cols.?;
            const root = c.table.add(schema) catch |e| return wireFail(e, self.index(), "its schema");
            return @intCast(root);
        }

        fn typedPart(self: *Self, schema: *const wire.Schema) Error!*wire.Writer {
            const c = self.cols.?;
            const root = try self.schemaCode(schema);
            self.part_code = root;
            self.part_typed = true;
            c.writer = .init(&c.data, c.gpa, c.table.nodes.items, @intCast(root));
            return &c.writer;
        }

        fn underPart(self: *Self, schema: wire.SchemaRef) Error!*wire.Writer {
            const c = self.cols.?;
            if (schema.index >= c.table.nodes.items.len) return fail(error.Usage, "record {d} of the batch: schema node {d} is not in this batch", .{ self.index(), schema.index });
            self.part_code = @intCast(schema.index);
            self.part_typed = true;
            c.writer = .init(&c.data, c.gpa, c.table.nodes.items, schema.index);
            return &c.writer;
        }

        fn schemalessPart(self: *Self) *wire.Writer {
            const c = self.cols.?;
            self.part_code = schemaless_code;
            self.part_typed = true;
            c.writer = .init(&c.data, c.gpa, c.table.nodes.items, null);
            return &c.writer;
        }

        fn ofPart(self: *Self, comptime T: type, v: T) Error!void {
            const c = self.cols.?;
            self.part_code = try self.schemaCode(wire.schemaOf(T));
            if (@typeInfo(T) == .optional) {
                if (v == null) {
                    self.part_null = true;
                    return;
                }
            }
            try wire.encodeOf(T, v, &c.data, c.gpa);
        }

        fn fromPart(self: *Self, d: Data) Error!void {
            const c = self.cols.?;
            if (d.code >= 0 and @as(usize, @intCast(d.code)) >= c.table.nodes.items.len)
                return fail(error.Usage, "record {d} of the batch: schema node {d} is not in this batch", .{ self.index(), d.code });
            self.part_code = d.code;
            if (d.bytes) |b| try c.data.appendSlice(c.gpa, b) else self.part_null = true;
        }

        // -- end ------------------------------------------------------------

        /// The record is complete: it joins the batch.
        pub fn end(self: *Self) Error!void {
            errdefer self.cancel();
            const c = self.cols orelse return fail(error.Usage, "end() without begin()", .{});
            if (self.phase == .value and !self.part_typed and !self.part_null and c.data.items.len - self.part_start <= std.math.maxInt(i32)) {
                // A raw value, the common case: close it straight.
                self.pending_value = .{ @intCast(c.data.items.len - self.part_start), self.part_code };
            } else if (self.phase == .idle) return fail(error.Usage, "end() without begin()", .{}) else if (self.phase != .after_value and self.phase != .header) try self.advanceTo(.header) // closes the key, a null value
            else if (self.phase == .header) try self.advanceTo(.after_value);
            // A part written as null (headerBytes(k, null), valueNullOf)
            // was closed with its length: fix up to -1 below.
            const i = self.index();
            try c.value_lengths.ensureUnusedCapacity(c.gpa, 1);
            try c.key_lengths.append(c.gpa, self.key_len);
            if (kind == .source and c.key_schemas.items.len == 0 and c.value_schemas.items.len == 0 and
                c.topic_indices.items.len == 0 and c.partitions.items.len == 0 and c.timestamps.items.len == 0 and
                c.header_counts.items.len == 0 and self.key_code == raw_code and self.pending_value[1] == raw_code and
                self.topic == -1 and self.partition == -1 and self.timestamp == -1 and self.headers == 0)
            {
                // Raw bytes, every optional column unset so far and here:
                // the two length columns only.
                c.value_lengths.appendAssumeCapacity(self.pending_value[0]);
                self.phase = .idle;
                return;
            }
            try c.pushOptional(i32, &c.key_schemas, i, self.key_code, raw_code);
            try c.pushOptional(i32, &c.value_schemas, i, self.pending_value[1], raw_code);
            try c.pushOptional(if (kind == .transform) u32 else i32, &c.topic_indices, i, @intCast(self.topic), if (kind == .transform) 0 else -1);
            try c.pushOptional(i32, &c.partitions, i, self.partition, -1);
            try c.pushOptional(i64, &c.timestamps, i, self.timestamp, -1);
            try c.pushOptional(u32, &c.header_counts, i, self.headers, 0);
            if (kind == .transform) {
                try c.offsets.append(c.gpa, self.offset);
                try c.origins.append(c.gpa, self.origin);
            }
            c.value_lengths.appendAssumeCapacity(self.pending_value[0]);
            self.phase = .idle;
        }
    };
}

/// What a source task's `poll` fills: records, packed, and the latest
/// source offset of each source partition the batch advances.
///
///     var r = try batch.begin(.{});
///     const k = try r.key();
///     try k.append("stream-0:");
///     try k.int(seq);
///     try r.valueOf(count);              // a typed value, schema derived from its type
///     try r.end();
///     try batch.advance("{\"stream\":\"stream-0\"}", offset_json);
pub const SourceBatch = struct {
    cols: Columns(.source),

    pub fn init(gpa: Allocator) SourceBatch {
        return .{ .cols = .init(gpa) };
    }
    pub fn deinit(self: *SourceBatch) void {
        self.cols.deinit();
    }
    /// Empty the batch, keeping its memory.
    pub fn clear(self: *SourceBatch) void {
        self.cols.clear();
    }
    /// Records in the batch.
    pub fn len(self: *const SourceBatch) usize {
        return self.cols.len();
    }

    /// Begin a record; write its parts on the returned `Record`, then
    /// `end()` it. The Kafka partition, if set, must be >= 0.
    pub fn begin(self: *SourceBatch, opts: RecordOptions) Error!*Record(.source) {
        const c = &self.cols;
        if (c.cur.phase != .idle) return fail(error.Usage, "record {d} of the batch: begin() before the last record's end()", .{c.len()});
        if (opts.partition) |p| if (p < 0) return fail(error.Usage, "record {d} of the batch names Kafka partition {d}; partitions are numbered from 0", .{ c.len(), p });
        c.cur.begin(c);
        if (opts.topic) |t| c.cur.topic = @intCast(try c.topicIndex(t));
        c.cur.partition = opts.partition orelse -1;
        c.cur.timestamp = opts.timestamp orelse -1;
        return &c.cur;
    }

    /// A record of raw bytes in one call (null key: none; null value: a
    /// tombstone).
    pub fn add(self: *SourceBatch, opts: RecordOptions, key: ?[]const u8, value: ?[]const u8) Error!void {
        const r = try self.begin(opts);
        if (key) |k| try r.keyBytes(k);
        if (value) |v| try r.valueBytes(v);
        try r.end();
    }

    /// Set the latest offset of source `partition` in this batch (both
    /// compact JSON objects, e.g. `{"stream":"s-0"}` and `{"seq":41}`):
    /// the host stores it once the batch's records are in Kafka and hands
    /// it back through `offsets.read` after a restart.
    pub fn advance(self: *SourceBatch, partition: []const u8, offset: []const u8) error{OutOfMemory}!void {
        const c = &self.cols;
        const a = c.text.allocator();
        for (c.positions.items) |*p| if (std.mem.eql(u8, p.partition.slice(), partition)) {
            p.offset = abi.str(try a.dupe(u8, offset));
            return;
        };
        try c.positions.append(c.gpa, .{ .partition = abi.str(try a.dupe(u8, partition)), .offset = abi.str(try a.dupe(u8, offset)) });
    }

    /// The batch for the canonical ABI: pointers into the builder's
    /// buffers, valid until the next `clear`.
    pub fn toAbi(self: *SourceBatch) abi.SourceBatch {
        const c = &self.cols;
        return .{
            .data = .of(c.data.items),
            .key_lengths = .of(c.key_lengths.items),
            .value_lengths = .of(c.value_lengths.items),
            .topics = .of(c.topics.items),
            .topic_indices = .of(c.topic_indices.items),
            .partitions = .of(c.partitions.items),
            .timestamps = .of(c.timestamps.items),
            .header_counts = .of(c.header_counts.items),
            .header_key_lengths = .of(c.header_key_lengths.items),
            .header_value_lengths = .of(c.header_value_lengths.items),
            .schemas = .of(c.table.nodes.items),
            .key_schemas = .of(c.key_schemas.items),
            .value_schemas = .of(c.value_schemas.items),
            .header_schemas = .of(c.header_schemas.items),
            .positions = .of(c.positions.items),
        };
    }
};

// ---------------------------------------------------------------------------
// Reading

/// A key, value or header value of a batch, borrowed for the call.
pub const Data = struct {
    /// null: null (no key, a tombstone, a header without a value).
    bytes: ?[]const u8,
    /// -1 raw bytes, -2 schemaless, n >= 0 a value of schema node n.
    code: i32 = raw_code,
    nodes: []const abi.SchemaNode = &.{},

    pub fn isNull(self: Data) bool {
        return self.bytes == null;
    }
    /// Raw bytes (what ByteArrayConverter gives), or null when this is
    /// null or typed.
    pub fn raw(self: Data) ?[]const u8 {
        return if (self.code == raw_code) self.bytes else null;
    }
    pub fn isSchemaless(self: Data) bool {
        return self.code == schemaless_code;
    }
    /// Its schema, when typed.
    pub fn schema(self: Data) ?wire.SchemaRef {
        return if (self.code >= 0) .{ .nodes = self.nodes, .index = @intCast(self.code) } else null;
    }
    /// The value: raw bytes as `.bytes`, null as `.null`, typed and
    /// schemaless values decoded (composites allocated from `arena`).
    pub fn decode(self: Data, arena: Allocator) wire.Error!wire.Value {
        const b = self.bytes orelse return .null;
        if (self.code == raw_code) return .{ .bytes = b };
        if (self.code == schemaless_code) return wire.decodeDynamic(arena, b);
        return wire.decode(arena, self.schema().?, b);
    }
};

pub const Header = struct { key: []const u8, value: Data };

/// One record of a batch, borrowed for the call.
pub const RecordView = struct {
    /// Its index in the batch (for the errant record reporter, origins).
    index: usize,
    topic: []const u8,
    /// -1: none (a source's record in a transform, partition unset).
    partition: i32,
    /// -1: none (a source's record).
    offset: i64,
    /// null: none.
    timestamp: ?i64,
    key: Data,
    value: Data,
    /// The headers' columns: use `headerCount` and `header(i)`.
    first_header: usize,
    header_count: usize,
    header_data: usize,
    view: *const anyopaque,
    header_fn: *const fn (*const anyopaque, *const RecordView, usize) Header,

    pub fn headerCount(self: *const RecordView) usize {
        return self.header_count;
    }
    /// Header `i` (0 <= i < headerCount()).
    pub fn header(self: *const RecordView, i: usize) Header {
        return self.header_fn(self.view, self, i);
    }
};

/// A read-only view over a batch the host handed in (a sink's `put`, a
/// transform's `apply`): index it once with `init`, then `record(i)`.
pub fn View(comptime B: type) type {
    return struct {
        raw: *const B,
        /// Per record: where its key starts in `data`, and its first header.
        starts: std.ArrayList(u32) = .empty,
        first_headers: std.ArrayList(u32) = .empty,
        gpa: Allocator,

        const Self = @This();

        pub fn init(gpa: Allocator) Self {
            return .{ .raw = undefined, .gpa = gpa };
        }

        pub fn deinit(self: *Self) void {
            self.starts.deinit(self.gpa);
            self.first_headers.deinit(self.gpa);
        }

        /// Index `raw` (checking its columns agree, so reading never goes
        /// out of bounds).
        pub fn load(self: *Self, raw: *const B) Error!void {
            self.raw = raw;
            self.starts.clearRetainingCapacity();
            self.first_headers.clearRetainingCapacity();
            const n = raw.value_lengths.len;
            try wire.checkTable(raw.schemas.slice());
            const per_record = .{ "key_lengths", "topic_indices", "partitions", "offsets", "timestamps" };
            inline for (per_record) |f| if (@field(raw, f).len != n)
                return fail(error.Malformed, "batch column {s} has {d} entries for {d} records", .{ f, @field(raw, f).len, n });
            inline for (.{ "key_schemas", "value_schemas", "header_counts" }) |f| if (@field(raw, f).len != 0 and @field(raw, f).len != n)
                return fail(error.Malformed, "batch column {s} has {d} entries for {d} records", .{ f, @field(raw, f).len, n });
            const nh = raw.header_key_lengths.len;
            if (raw.header_value_lengths.len != nh or (raw.header_schemas.len != 0 and raw.header_schemas.len != nh))
                return fail(error.Malformed, "batch header columns disagree", .{});
            try self.starts.ensureTotalCapacity(self.gpa, n + 1);
            try self.first_headers.ensureTotalCapacity(self.gpa, n + 1);
            const kl = raw.key_lengths.slice();
            const vl = raw.value_lengths.slice();
            const hc = raw.header_counts.slice();
            const hkl = raw.header_key_lengths.slice();
            const hvl = raw.header_value_lengths.slice();
            var pos: u64 = 0;
            var h: usize = 0;
            for (0..n) |i| {
                self.starts.appendAssumeCapacity(@intCast(@min(pos, std.math.maxInt(u32))));
                self.first_headers.appendAssumeCapacity(@intCast(h));
                pos += @intCast(@max(kl[i], 0));
                pos += @intCast(@max(vl[i], 0));
                const count = if (hc.len > 0) hc[i] else 0;
                if (count > nh - h) return fail(error.Malformed, "record {d} has {d} headers, past the header columns", .{ i, count });
                for (h..h + count) |j| pos += hkl[j] + @as(u64, @intCast(@max(hvl[j], 0)));
                h += count;
                if (pos > raw.data.len) return fail(error.Malformed, "record {d} ends past the batch's {d} bytes", .{ i, raw.data.len });
            }
            if (h != nh) return fail(error.Malformed, "{d} headers in the columns, {d} counted", .{ nh, h });
            self.starts.appendAssumeCapacity(@intCast(pos));
            self.first_headers.appendAssumeCapacity(@intCast(h));
            for (raw.topic_indices.slice()) |ti| if (ti >= raw.topics.len) return fail(error.Malformed, "topic index {d} of {d} topics", .{ ti, raw.topics.len });
            inline for (.{ "key_schemas", "value_schemas", "header_schemas" }) |f| for (@field(raw, f).slice()) |sc|
                if (sc < schemaless_code or sc >= @as(i64, @intCast(raw.schemas.len))) return fail(error.Malformed, "schema code {d} with {d} schema nodes", .{ sc, raw.schemas.len });
        }

        pub fn len(self: *const Self) usize {
            return self.raw.value_lengths.len;
        }

        /// The schemas of the batch.
        pub fn schemas(self: *const Self) []const abi.SchemaNode {
            return self.raw.schemas.slice();
        }

        fn data(self: *const Self, at: usize, l: i32, sc: i32) Data {
            return .{
                .bytes = if (l < 0) null else self.raw.data.slice()[at .. at + @as(usize, @intCast(l))],
                .code = sc,
                .nodes = self.raw.schemas.slice(),
            };
        }

        fn codeAt(column: anytype, i: usize) i32 {
            return if (column.len == 0) raw_code else column.slice()[i];
        }

        /// Record `i` (0 <= i < len()).
        pub fn record(self: *const Self, i: usize) RecordView {
            const r = self.raw;
            const kl = r.key_lengths.slice()[i];
            const vl = r.value_lengths.slice()[i];
            const start: usize = self.starts.items[i];
            const vstart = start + @as(usize, @intCast(@max(kl, 0)));
            const ts = r.timestamps.slice()[i];
            return .{
                .index = i,
                .topic = r.topics.slice()[r.topic_indices.slice()[i]].slice(),
                .partition = r.partitions.slice()[i],
                .offset = r.offsets.slice()[i],
                .timestamp = if (ts < 0) null else ts,
                .key = self.data(start, kl, codeAt(r.key_schemas, i)),
                .value = self.data(vstart, vl, codeAt(r.value_schemas, i)),
                .first_header = self.first_headers.items[i],
                .header_count = self.first_headers.items[i + 1] - self.first_headers.items[i],
                .header_data = vstart + @as(usize, @intCast(@max(vl, 0))),
                .view = self,
                .header_fn = headerOf,
            };
        }

        fn headerOf(ctx: *const anyopaque, rec: *const RecordView, i: usize) Header {
            const self: *const Self = @ptrCast(@alignCast(ctx));
            const r = self.raw;
            var at = rec.header_data;
            const hkl = r.header_key_lengths.slice();
            const hvl = r.header_value_lengths.slice();
            for (rec.first_header..rec.first_header + i) |j| at += hkl[j] + @as(usize, @intCast(@max(hvl[j], 0)));
            const j = rec.first_header + i;
            const k = r.data.slice()[at .. at + hkl[j]];
            return .{ .key = k, .value = self.data(at + hkl[j], hvl[j], codeAt(r.header_schemas, j)) };
        }
    };
}

pub const SinkView = View(abi.SinkBatch);
pub const TransformView = View(abi.RecordBatch);

/// What a transform's `apply` fills: records built from the input's, each
/// naming the input record it came from (`origins`, never decreasing).
/// The input's schemas carry over (their nodes keep their indices), so a
/// record may reuse any input key, value or header as it is.
pub const TransformOutput = struct {
    cols: Columns(.transform),
    input: ?*const TransformView = null,
    last_origin: u32 = 0,

    pub fn init(gpa: Allocator) TransformOutput {
        return .{ .cols = .init(gpa) };
    }
    pub fn deinit(self: *TransformOutput) void {
        self.cols.deinit();
    }
    pub fn len(self: *const TransformOutput) usize {
        return self.cols.len();
    }

    /// Start over for `input`: its topics and schemas carry over.
    pub fn reset(self: *TransformOutput, input: *const TransformView) error{OutOfMemory}!void {
        self.cols.clear();
        self.input = input;
        self.last_origin = 0;
        try self.cols.topics.appendSlice(self.cols.gpa, input.raw.topics.slice());
        try self.cols.table.nodes.appendSlice(self.cols.gpa, input.raw.schemas.slice());
    }

    /// Begin a record that comes from input record `origin`, with its
    /// topic, partition, offset and timestamp (change them with
    /// `setTopic`, `setPartition`, `setTimestamp`); write its key, value
    /// and headers, then `end()` it.
    pub fn begin(self: *TransformOutput, origin: usize) Error!*Record(.transform) {
        const c = &self.cols;
        const in = self.input orelse return fail(error.Usage, "no input batch", .{});
        if (c.cur.phase != .idle) return fail(error.Usage, "record {d} of the output: begin() before the last record's end()", .{c.len()});
        if (origin >= in.len()) return fail(error.Usage, "origin {d} of an input of {d} records", .{ origin, in.len() });
        if (origin < self.last_origin) return fail(error.Usage, "origin {d} after origin {d}: origins never decrease", .{ origin, self.last_origin });
        self.last_origin = @intCast(origin);
        const r = in.raw;
        c.cur.begin(c);
        c.cur.origin = @intCast(origin);
        c.cur.topic = r.topic_indices.slice()[origin];
        c.cur.partition = r.partitions.slice()[origin];
        c.cur.timestamp = r.timestamps.slice()[origin];
        c.cur.offset = r.offsets.slice()[origin];
        return &c.cur;
    }

    /// Input record `origin` as it is.
    pub fn pass(self: *TransformOutput, origin: usize) Error!void {
        const in = self.input orelse return fail(error.Usage, "no input batch", .{});
        const rec = try self.begin(origin);
        const v = in.record(origin);
        try rec.keyFrom(v.key);
        try rec.valueFrom(v.value);
        for (0..v.headerCount()) |h| {
            const hd = v.header(h);
            try rec.headerFrom(hd.key, hd.value);
        }
        try rec.end();
    }

    pub fn setTopic(self: *TransformOutput, name: []const u8) error{OutOfMemory}!void {
        self.cols.cur.topic = @intCast(try self.cols.topicIndex(name));
    }

    /// The batch for the canonical ABI, valid until the next `reset`.
    pub fn toAbi(self: *TransformOutput) abi.RecordBatch {
        const c = &self.cols;
        return .{
            .data = .of(c.data.items),
            .key_lengths = .of(c.key_lengths.items),
            .value_lengths = .of(c.value_lengths.items),
            .topics = .of(c.topics.items),
            .topic_indices = .of(c.topic_indices.items),
            .partitions = .of(c.partitions.items),
            .timestamps = .of(c.timestamps.items),
            .offsets = .of(c.offsets.items),
            .header_counts = .of(c.header_counts.items),
            .header_key_lengths = .of(c.header_key_lengths.items),
            .header_value_lengths = .of(c.header_value_lengths.items),
            .schemas = .of(c.table.nodes.items),
            .key_schemas = .of(c.key_schemas.items),
            .value_schemas = .of(c.value_schemas.items),
            .header_schemas = .of(c.header_schemas.items),
            .origins = .of(c.origins.items),
        };
    }
};
