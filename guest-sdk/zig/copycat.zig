//! The Zig SDK for Copycat connectors and transforms.
//!
//! A Copycat connector is a WebAssembly component implementing the world
//! `source` or `sink` of `copycat:connector@0.3.0` (wit/connector@0.3.0/),
//! optionally dynamic (`copycat:dynamic@0.1.0`); a transform implements
//! `copycat:transform@0.1.0`. This module hides the bindings `wit-bindgen
//! c` generates for those worlds (translated with `zig translate-c`,
//! imported as the module `bindings`): a connector is a Zig file that
//! declares its plugin `info`, an optional `validate` and `taskConfigs`, a
//! `Task` type (and, dynamic, an `Instance` type), and exports them with one
//! call:
//!
//!     const std = @import("std");
//!     const cc = @import("copycat");
//!
//!     pub const info: cc.Info = .{
//!         .name = "my-source", .version = "0.1.0",
//!         .description = "What it moves, from where to where",
//!         .config_def = &.{
//!             .{ .name = "topic", .type = .string, .required = true, .doc = "Kafka topic" },
//!         },
//!     };
//!
//!     pub const Task = struct {
//!         pub fn start(config: cc.Config) cc.Error!Task { ... }
//!         pub fn poll(self: *Task, max_records: u32, batch: *cc.SourceBatch) cc.Error!void {
//!             const r = try batch.begin(.{});
//!             try r.keyBytes("k");
//!             try r.valueOf(Reading{ .sensor = "s1", .celsius = 21 }); // typed, schema derived
//!             try r.end();
//!             try batch.advance("{\"sensor\":\"s1\"}", "{\"seq\":1}");
//!         }
//!     };
//!
//!     comptime {
//!         cc.exportSource(@This());
//!     }
//!
//! Errors: every fallible function returns `cc.Error`, which the SDK maps
//! to the WIT error variants: `error.Config`, `error.Retriable`,
//! `error.Fatal` (made with a message by `cc.configError`, `cc.retriable`,
//! `cc.fatal`, std.fmt syntax), `error.OutOfMemory` (fatal "out of
//! memory"), the builders' `error.Mismatch` / `error.Malformed` /
//! `error.Usage` (fatal, with `cc.wire.detail()` as the message: which
//! record, what did not fit) and, for transforms, `error.Record`
//! (`cc.recordError`). Never panic: `@panic`, `unreachable` and safety
//! checks trap, and a trap fails the task at once with no retry.
//!
//! Memory: everything the SDK passes to a callback (configs, batches,
//! partitions) is borrowed for the duration of the call; copy what you keep
//! (with `cc.allocator`, malloc underneath). A source's batch and a
//! transform's output are the SDK's: their buffers live from call to call
//! and go to the host without a copy.
//!
//! Each task runs in its own instance, so the SDK keeps the started `Task`
//! in a global; calls never overlap.

const std = @import("std");
const c = @import("bindings");
const abi = @import("src/abi.zig");
const batch = @import("src/batch.zig");

/// Schemas, the value writer and decoder, JSON (src/wire.zig).
pub const wire = @import("src/wire.zig");

/// The allocator for connector state: libc's malloc (wasi-libc).
pub const allocator = std.heap.c_allocator;

// The world the bindings were generated for.
const is_source = @hasDecl(c, "exports_copycat_connector_source_task_poll");
const is_sink = @hasDecl(c, "exports_copycat_connector_sink_task_put");
const is_transform = @hasDecl(c, "exports_copycat_transform_transformer_apply");
const is_dynamic = @hasDecl(c, "exports_copycat_dynamic_instance_start");

comptime {
    if (is_source) abi.assertSameLayout(abi.SourceBatch, c.exports_copycat_connector_source_task_source_batch_t);
    if (is_sink) abi.assertSameLayout(abi.SinkBatch, c.exports_copycat_connector_sink_task_sink_batch_t);
    if (is_transform) {
        abi.assertSameLayout(abi.RecordBatch, c.exports_copycat_transform_transformer_record_batch_t);
        abi.assertSameLayout(abi.TransformInfo, c.exports_copycat_transform_transformer_transform_info_t);
        abi.assertSameLayout(abi.TransformError, c.exports_copycat_transform_transformer_transform_error_t);
    } else {
        abi.assertSameLayout(abi.PluginInfo, c.copycat_connector_types_plugin_info_t);
        abi.assertSameLayout(abi.ConnectorError, c.copycat_connector_types_connector_error_t);
    }
    abi.assertSameLayout(abi.SchemaNode, c.copycat_connector_batch_schema_node_t);
    abi.assertSameLayout(abi.ConfigKey, c.copycat_connector_types_config_key_t);
    abi.assertSameLayout(abi.ConfigProblem, c.copycat_connector_types_config_problem_t);
}

// ---------------------------------------------------------------------------
// Re-exports: the typed-record and batch API

pub const Schema = wire.Schema;
pub const Field = wire.Field;
pub const Type = wire.Type;
pub const Bytes = wire.Bytes;
pub const schemaOf = wire.schemaOf;
pub const Value = wire.Value;
pub const Entry = wire.Entry;
pub const SchemaRef = wire.SchemaRef;
/// Writes one typed value, checked against its schema (`keyTyped`,
/// `valueTyped`, `headerTyped` return one).
pub const ValueWriter = wire.Writer;
/// Raw bytes written straight into a batch (`key()`, `value()`).
pub const Raw = batch.Raw;
pub const RecordOptions = batch.RecordOptions;
/// A source's batch: records packed into one buffer and integer columns.
pub const SourceBatch = batch.SourceBatch;
/// A record being written into a batch: key, value, headers, then `end()`.
pub const SourceRecord = batch.Record(.source);
pub const OutputRecord = batch.Record(.transform);
/// A key, a value or a header value of a batch the host handed in.
pub const Data = batch.Data;
pub const Header = batch.Header;
/// One record of a sink's or transform's input batch, borrowed.
pub const Record = batch.RecordView;
/// A sink's `put` batch, read-only: `len()`, `record(i)`.
pub const SinkBatch = batch.SinkView;
/// A transform's input batch, read-only: `len()`, `record(i)`.
pub const TransformInput = batch.TransformView;
/// A transform's output: records built from the input's (`pass`, `begin`).
pub const TransformOutput = batch.TransformOutput;

// ---------------------------------------------------------------------------
// Errors

/// What a fallible callback returns.
pub const Error = error{
    /// connector-error::config (transform-error::config): a bad config.
    Config,
    /// connector-error::retriable: transient; the host retries the call.
    Retriable,
    /// connector-error::fatal: the task fails.
    Fatal,
    /// Reported as fatal("out of memory").
    OutOfMemory,
    /// A value that does not fit its schema: fatal, `wire.detail()` says how.
    Mismatch,
    /// A batch or value that does not decode: fatal, `wire.detail()` says how.
    Malformed,
    /// A builder used out of order: fatal, `wire.detail()` says how.
    Usage,
    /// Transforms: transform-error::record (`recordError`); elsewhere fatal.
    Record,
};

var error_message: ?[]u8 = null;
var error_record: u32 = 0;

fn setMessage(comptime fmt: []const u8, args: anytype) void {
    // Format first: `args` may refer to the previous message.
    const message = std.fmt.allocPrint(allocator, fmt, args) catch null;
    clearError();
    error_message = message;
}

fn clearError() void {
    if (error_message) |m| allocator.free(m);
    error_message = null;
}

/// `error.Config` with a message.
pub fn configError(comptime fmt: []const u8, args: anytype) Error {
    setMessage(fmt, args);
    return error.Config;
}

/// `error.Retriable` with a message.
pub fn retriable(comptime fmt: []const u8, args: anytype) Error {
    setMessage(fmt, args);
    return error.Retriable;
}

/// `error.Fatal` with a message.
pub fn fatal(comptime fmt: []const u8, args: anytype) Error {
    setMessage(fmt, args);
    return error.Fatal;
}

/// Transforms: input record `index` cannot be transformed (Kafka
/// Connect's DataException), with a message.
pub fn recordError(index: usize, comptime fmt: []const u8, args: anytype) Error {
    setMessage(fmt, args);
    error_record = std.math.cast(u32, index) orelse std.math.maxInt(u32);
    return error.Record;
}

/// The message of the latest error ("" if none).
pub fn errorMessage() []const u8 {
    return error_message orelse "";
}

fn messageOf(e: Error) []const u8 {
    return switch (e) {
        error.OutOfMemory => "out of memory",
        error.Mismatch, error.Malformed, error.Usage => wire.detail(),
        else => if (errorMessage().len > 0) errorMessage() else "(the connector gave no message)",
    };
}

const libc_strerror = @extern(*const fn (c_int) callconv(.c) [*:0]const u8, .{ .name = "strerror" });

/// The text of a libc errno value (for messages on file errors).
pub fn strerror(e: anytype) []const u8 {
    const n: c_int = switch (@typeInfo(@TypeOf(e))) {
        .@"enum" => @intCast(@backingInt(e)),
        else => @intCast(e),
    };
    return std.mem.span(libc_strerror(n));
}

// ---------------------------------------------------------------------------
// Memory handed to the host by the generated glue (freed with free() by
// its post-return functions)

/// malloc'ed memory; an empty list owns nothing (null, never a dangling
/// pointer: wasmtime rejects those as out of bounds).
fn hostAlloc(comptime T: type, n: usize) error{OutOfMemory}!?[*]T {
    if (n == 0) return null;
    const p = std.c.malloc(n * @sizeOf(T)) orelse return error.OutOfMemory;
    return @ptrCast(@alignCast(p));
}

fn hostFree(p: anytype) void {
    std.c.free(@ptrCast(p));
}

/// Free a list or string the host handed in: only when it is not empty
/// (the host's pointer of an empty list is no allocation).
fn freeIn(l: anytype) void {
    if (l.len > 0) std.c.free(@ptrCast(l.ptr));
}

/// Replace invalid UTF-8 in `p[0..n]` with '?' (strings crossing into
/// the host must be valid, or the call traps).
fn sanitize(s: []u8) void {
    if (std.unicode.utf8ValidateSlice(s)) return;
    var i: usize = 0;
    while (i < s.len) {
        const n = std.unicode.utf8ByteSequenceLength(s[i]) catch 0;
        if (n == 0 or i + n > s.len or !std.unicode.utf8ValidateSlice(s[i .. i + n])) {
            s[i] = '?';
            i += 1;
        } else i += n;
    }
}

/// A host-owned (malloc'ed) copy of `s`, made valid UTF-8.
fn wstr(s: []const u8) error{OutOfMemory}!abi.Str {
    const p = try hostAlloc(u8, s.len) orelse return .{};
    @memcpy(p[0..s.len], s);
    sanitize(p[0..s.len]);
    return .{ .ptr = p, .len = s.len };
}

fn wstrOrEmpty(s: []const u8) abi.Str {
    return wstr(s) catch .{};
}

/// A growable list of `T` in malloc'ed memory, handed to the host as
/// `{ptr, len}` (ptr null when empty).
fn HostList(comptime T: type) type {
    return struct {
        items: ?[*]T = null,
        len: usize = 0,
        cap: usize = 0,

        const Self = @This();

        fn push(self: *Self) error{OutOfMemory}!*T {
            if (self.len == self.cap) {
                const cap = if (self.cap == 0) 8 else self.cap * 2;
                const p = std.c.realloc(@ptrCast(self.items), cap * @sizeOf(T)) orelse return error.OutOfMemory;
                self.items = @ptrCast(@alignCast(p));
                self.cap = cap;
            }
            const item = &self.items.?[self.len];
            item.* = std.mem.zeroes(T);
            self.len += 1;
            return item;
        }

        fn slice(self: Self) []T {
            return if (self.items) |p| p[0..self.len] else &.{};
        }

        /// The list for the host (null when empty).
        fn take(self: *Self) abi.List(T) {
            if (self.len == 0) {
                hostFree(self.items);
                self.* = .{};
                return .{};
            }
            return .{ .ptr = self.items, .len = self.len };
        }
    };
}

/// Free a config the host handed in (we own the arguments).
fn freeConfig(cfg: *abi.Config) void {
    for (cfg.slice()) |p| {
        freeIn(p.f0);
        freeIn(p.f1);
    }
    freeIn(cfg.*);
}

// ---------------------------------------------------------------------------
// Configs

/// A configuration, borrowed: the operator's key/value pairs (keys are
/// unique). Every key is passed through, including the host's (`name`,
/// `tasks.max`, `grants.*`).
pub const Config = struct {
    pairs: []const abi.Pair,

    /// A config of (key, value) pairs you own (tests, defaults).
    pub fn of(pairs: []const abi.Pair) Config {
        return .{ .pairs = pairs };
    }

    /// The value of `key`, or null.
    pub fn get(self: Config, key: []const u8) ?[]const u8 {
        for (self.pairs) |p| if (std.mem.eql(u8, p.f0.slice(), key)) return p.f1.slice();
        return null;
    }

    /// The value of a required `key`; missing or blank: `error.Config`
    /// naming the key.
    pub fn require(self: Config, key: []const u8) Error![]const u8 {
        const v = self.get(key) orelse return configError("config '{s}' is required but is not set", .{key});
        if (trim(v).len == 0) return configError("config '{s}' is required but is empty", .{key});
        return v;
    }

    /// A decimal integer `key` in [min, max]; `default` when absent or
    /// blank; otherwise `error.Config` naming the key and the value.
    pub fn int(self: Config, comptime T: type, key: []const u8, default: T, min: T, max: T) Error!T {
        const raw = self.get(key) orelse return default;
        const v = trim(raw);
        if (v.len == 0) return default;
        // Plain decimal only (std.fmt.parseInt would also take "1_000").
        for (v, 0..) |ch, i| {
            if (!std.ascii.isDigit(ch) and !(i == 0 and (ch == '-' or ch == '+'))) return rangeError(T, key, v, min, max);
        }
        const n = std.fmt.parseInt(T, v, 10) catch return rangeError(T, key, v, min, max);
        if (n < min or n > max) return rangeError(T, key, v, min, max);
        return n;
    }

    /// `true` or `false` (any case); `default` when absent or blank.
    pub fn boolean(self: Config, key: []const u8, default: bool) Error!bool {
        const v = trim(self.get(key) orelse return default);
        if (v.len == 0) return default;
        if (std.ascii.eqlIgnoreCase(v, "true")) return true;
        if (std.ascii.eqlIgnoreCase(v, "false")) return false;
        return configError("config '{s}': invalid value '{s}': expected true or false", .{ key, v });
    }

    /// The comma-separated items of `key`, trimmed, empty ones skipped.
    pub fn list(self: Config, key: []const u8) ListIterator {
        return .{ .inner = std.mem.splitScalar(u8, self.get(key) orelse "", ','), .skip_empty = true };
    }

    /// The comma-separated items of `key`, trimmed, empty ones included
    /// (to find them: `a,,b`). An absent or blank key has no items.
    pub fn listAll(self: Config, key: []const u8) ListIterator {
        const v = trim(self.get(key) orelse "");
        return .{ .inner = std.mem.splitScalar(u8, v, ','), .skip_empty = false, .empty = v.len == 0 };
    }

    /// A copy you own (for a dynamic `Instance` that keeps its config).
    pub fn clone(self: Config, gpa: std.mem.Allocator) error{OutOfMemory}!OwnedConfig {
        var arena = std.heap.ArenaAllocator.init(gpa);
        errdefer arena.deinit();
        const a = arena.allocator();
        const pairs = try a.alloc(abi.Pair, self.pairs.len);
        for (self.pairs, pairs) |p, *q| q.* = .{ .f0 = abi.str(try a.dupe(u8, p.f0.slice())), .f1 = abi.str(try a.dupe(u8, p.f1.slice())) };
        return .{ .arena = arena, .pairs = pairs };
    }

    fn rangeError(comptime T: type, key: []const u8, v: []const u8, min: T, max: T) Error {
        if (max == std.math.maxInt(T))
            return configError("config '{s}': invalid value '{s}': expected an integer >= {d}", .{ key, v, min });
        return configError("config '{s}': invalid value '{s}': expected an integer from {d} to {d}", .{ key, v, min, max });
    }
};

/// A config you own (`Config.clone`).
pub const OwnedConfig = struct {
    arena: std.heap.ArenaAllocator,
    pairs: []const abi.Pair,

    pub fn config(self: *const OwnedConfig) Config {
        return .{ .pairs = self.pairs };
    }
    pub fn deinit(self: *OwnedConfig) void {
        self.arena.deinit();
    }
};

/// A (key, value) pair for `Config.of`.
pub fn pair(key: []const u8, value: []const u8) abi.Pair {
    return .{ .f0 = abi.str(key), .f1 = abi.str(value) };
}

pub const ListIterator = struct {
    inner: std.mem.SplitIterator(u8, .scalar),
    skip_empty: bool,
    empty: bool = false,

    pub fn next(self: *ListIterator) ?[]const u8 {
        if (self.empty) return null;
        while (self.inner.next()) |item| {
            const t = trim(item);
            if (t.len > 0 or !self.skip_empty) return t;
        }
        return null;
    }
};

fn trim(s: []const u8) []const u8 {
    return std.mem.trim(u8, s, " \t\r\n");
}

/// Task configs, built by `taskConfigs`.
pub const ConfigList = struct {
    list: HostList(abi.Config) = .{},

    /// Append a copy of `base` with the `overrides` (key, value) set.
    pub fn add(self: *ConfigList, base: Config, overrides: []const [2][]const u8) error{OutOfMemory}!void {
        const w = try self.list.push();
        var pairs: HostList(abi.Pair) = .{};
        errdefer {
            var l = pairs.take();
            freeConfig(&l);
        }
        for (base.pairs) |p| {
            if (overridden(overrides, p.f0.slice())) continue;
            const q = try pairs.push();
            q.f0 = try wstr(p.f0.slice());
            q.f1 = try wstr(p.f1.slice());
        }
        for (overrides) |o| {
            const q = try pairs.push();
            q.f0 = try wstr(o[0]);
            q.f1 = try wstr(o[1]);
        }
        w.* = pairs.take();
    }

    /// How many configs so far.
    pub fn count(self: *const ConfigList) usize {
        return self.list.len;
    }

    fn overridden(overrides: []const [2][]const u8, key: []const u8) bool {
        for (overrides) |o| if (std.mem.eql(u8, o[0], key)) return true;
        return false;
    }

    fn discard(self: *ConfigList) void {
        for (self.list.slice()) |*cfg| freeConfig(cfg);
        hostFree(self.list.items);
        self.list = .{};
    }
};

pub const ConfigType = enum(u8) { string, int, long, double, boolean, list, password };
pub const Importance = enum(u8) { high, medium, low };

/// One key of the configuration definition.
pub const ConfigKey = struct {
    name: []const u8,
    type: ConfigType = .string,
    default: ?[]const u8 = null,
    required: bool = false,
    doc: []const u8 = "",
    importance: Importance = .high,
};

/// What `describe` returns: declare it as `pub const info: cc.Info`.
pub const Info = struct {
    name: []const u8,
    version: []const u8,
    description: []const u8 = "",
    config_def: []const ConfigKey = &.{},
};

/// Problems found by `validate`, one per key at fault.
pub const Problems = struct {
    list: HostList(abi.ConfigProblem) = .{},

    /// Add a problem on `key` ("" for the config as a whole).
    pub fn add(self: *Problems, key: []const u8, comptime fmt: []const u8, args: anytype) void {
        const msg = std.fmt.allocPrint(allocator, fmt, args) catch return;
        defer allocator.free(msg);
        self.push(key, msg);
    }

    /// If `result` (of a Config getter) is an error, add a problem on `key`
    /// with its message.
    pub fn check(self: *Problems, key: []const u8, result: anytype) void {
        _ = result catch |e| {
            self.push(key, messageOf(e));
            clearError();
        };
    }

    /// How many problems so far.
    pub fn count(self: *const Problems) usize {
        return self.list.len;
    }

    fn push(self: *Problems, key: []const u8, msg: []const u8) void {
        const p = self.list.push() catch return;
        p.key = wstrOrEmpty(key);
        p.message = wstrOrEmpty(msg);
    }
};

fn configDef(keys: []const ConfigKey) abi.List(abi.ConfigKey) {
    const ks = (hostAlloc(abi.ConfigKey, keys.len) catch null) orelse return .{};
    for (keys, 0..) |k, n| {
        ks[n] = .{
            .name = wstrOrEmpty(k.name),
            .type = @backingInt(k.type),
            .required = k.required,
            .doc = wstrOrEmpty(k.doc),
            .importance = @backingInt(k.importance),
        };
        if (k.default) |d| ks[n].default_value = .some(wstrOrEmpty(d));
    }
    return .{ .ptr = ks, .len = keys.len };
}

// ---------------------------------------------------------------------------
// Host functions

pub const Level = enum(u8) { trace, debug, info, warn, err };

/// One line in the worker's log (the host adds connector name and task id).
pub fn log(level: Level, comptime fmt: []const u8, args: anytype) void {
    const msg = std.fmt.allocPrint(allocator, fmt, args) catch return;
    defer allocator.free(msg);
    sanitize(msg);
    var w = abi.str(msg);
    c.copycat_connector_logging_log(@backingInt(level), @ptrCast(&w));
}

pub const clock = struct {
    /// Milliseconds since the Unix epoch.
    pub fn nowMs() i64 {
        if (is_transform) @compileError("cc.clock is for connectors (the transform world imports logging only; use std.time)");
        return c.copycat_connector_clock_now_ms();
    }
    /// Nanoseconds on a monotonic clock (for intervals).
    pub fn monotonicNs() u64 {
        if (is_transform) @compileError("cc.clock is for connectors (the transform world imports logging only)");
        return c.copycat_connector_clock_monotonic_ns();
    }
};

/// Whether `path` lies under a directory the operator granted
/// (grants.fs.read / grants.fs.write). Files are plain WASI (libc's
/// open/write/...) with absolute paths; a path outside every grant looks
/// missing (ENOENT), so use this to tell a missing grant from a missing file.
pub fn fsGranted(path: []const u8) bool {
    var buf: [4096]u8 = undefined;
    if (path.len >= buf.len) return false;
    var n = path.len;
    while (n > 0) {
        @memcpy(buf[0..n], path[0..n]);
        buf[n] = 0;
        var st: std.c.Stat = undefined;
        if (std.c.stat(buf[0..n :0].ptr, &st) == 0) return true;
        if (n == 1) return false; // "/" itself
        while (n > 0 and path[n - 1] != '/') n -= 1; // drop the last component
        while (n > 1 and path[n - 1] == '/') n -= 1; // and the slashes before it
    }
    return false;
}

// ---------------------------------------------------------------------------
// Sources

/// A source partition and its offset (compact JSON objects).
pub const SourcePosition = struct {
    partition: []const u8,
    offset: []const u8,
};

/// Committed source offsets, as read by `offsets.read`: `get`, then
/// `deinit`.
pub const Positions = struct {
    raw: abi.List(abi.SourcePosition) = .{},

    /// The committed offset (compact JSON) of `partition` (compact JSON,
    /// as given to `SourceBatch.advance`), or null.
    pub fn get(self: Positions, partition: []const u8) ?[]const u8 {
        for (self.raw.slice()) |p| if (std.mem.eql(u8, p.partition.slice(), partition)) return p.offset.slice();
        return null;
    }

    pub fn deinit(self: *Positions) void {
        for (self.raw.slice()) |p| {
            freeIn(p.partition);
            freeIn(p.offset);
        }
        freeIn(self.raw);
        self.raw = .{};
    }
};

/// The host's offset store (sources only).
pub const offsets = struct {
    /// The last committed offset of each of `partitions` (compact JSON
    /// objects) that has one. Call it in `start` to resume.
    pub fn read(partitions: []const []const u8) error{OutOfMemory}!Positions {
        if (!is_source) @compileError("cc.offsets.read is for source connectors: the sink world has no offsets import");
        const arg = try allocator.alloc(abi.Str, partitions.len);
        defer allocator.free(arg);
        for (partitions, arg) |p, *a| a.* = abi.str(p);
        var list = abi.List(abi.Str).of(arg);
        var out: Positions = .{};
        c.copycat_connector_offsets_read(@ptrCast(&list), @ptrCast(&out.raw));
        return out;
    }
};

/// Transaction boundaries (exactly-once sources with
/// transaction.boundary=connector), for the batch of this `poll`.
pub const transactions = struct {
    pub fn commit() void {
        if (!is_source) @compileError("cc.transactions is for source connectors");
        c.copycat_connector_transactions_commit();
    }
    pub fn abort() void {
        if (!is_source) @compileError("cc.transactions is for source connectors");
        c.copycat_connector_transactions_abort();
    }
};

// ---------------------------------------------------------------------------
// Sinks

pub const TopicPartition = struct {
    topic: []const u8,
    partition: i32,
};

pub const TopicPartitionOffset = struct {
    topic: []const u8,
    partition: i32,
    /// The next offset to read.
    offset: i64,
};

/// The offsets `open` returns: the partitions whose progress the task keeps.
pub const Offsets = struct {
    list: HostList(abi.TopicPartitionOffset) = .{},

    /// Resume `topic`/`partition` at `offset` (the next offset to read).
    pub fn add(self: *Offsets, topic: []const u8, partition: i32, offset: i64) error{OutOfMemory}!void {
        const w = try self.list.push();
        w.* = .{ .topic = try wstr(topic), .partition = partition, .offset = offset };
    }
};

/// Errant records (`copycat:errant/reporter@0.1.0`, Kafka Connect's
/// ErrantRecordReporter), for sinks, during `put`: report a record of the
/// batch the task cannot write; the host logs it, sends it as it was
/// consumed to the connector's dead letter queue and, with
/// errors.tolerance=all, the task goes on. A reported record counts as
/// handled: its offset is committed with the batch's.
///
///     cc.errant.report(r.index, why) catch |e|
///         return cc.fatal("offset {d}: {s}", .{ r.offset, cc.errant.describe(e) });
///
/// A sink that calls `report` imports the reporter; one that does not, does
/// not. Sources cannot call it (compile error): the host refuses a source
/// that imports it.
pub const errant = struct {
    /// Why a report was not taken; `message()` says it in words.
    pub const ReportError = error{
        /// The connector sets neither errors.deadletterqueue.topic.name nor
        /// errors.log.enable, so there is no reporter: handle the record
        /// yourself (fail `put`, or skip it knowingly).
        Unavailable,
        /// errors.tolerance=none: the record was logged and queued, and the
        /// task fails once `put` returns.
        ToleranceExceeded,
        /// No record at that index in the batch of the running `put` (or no
        /// `put` is running); `message()` says which.
        NoSuchRecord,
        OutOfMemory,
    };

    var text: []const u8 = "";
    var owned: ?[]u8 = null;

    fn fail(e: ReportError, comptime fmt: []const u8, args: anytype) ReportError {
        const t = std.fmt.allocPrint(allocator, fmt, args) catch null;
        if (owned) |o| allocator.free(o);
        owned = t;
        text = t orelse "out of memory";
        return e;
    }

    /// Report record `index` (`Record.index`, from 0 in the batch the
    /// running `put` received) as errant because of `reason` (the host
    /// keeps its first 4 KiB). Reporting a record again in the same `put`
    /// changes nothing.
    pub fn report(index: usize, reason: []const u8) ReportError!void {
        if (!is_sink) @compileError("cc.errant is for sink connectors: the host refuses a source or transform that imports the reporter");
        const i = std.math.cast(u32, index) orelse return fail(error.NoSuchRecord, "no such record: record {d}", .{index});
        const copy = allocator.dupe(u8, reason) catch return fail(error.OutOfMemory, "out of memory", .{});
        defer allocator.free(copy);
        sanitize(copy);
        var w = abi.str(copy);
        var e: abi.ReportError = .{ .tag = 0, .val = .{} };
        if (c.copycat_errant_reporter_report(i, @ptrCast(&w), @ptrCast(&e))) {
            if (owned) |o| allocator.free(o);
            owned = null;
            text = "";
            return;
        }
        defer if (e.tag == 2) freeIn(e.val);
        return switch (e.tag) {
            0 => fail(error.Unavailable, "no errant record reporter: the connector sets neither errors.deadletterqueue.topic.name nor errors.log.enable", .{}),
            1 => fail(error.ToleranceExceeded, "errors.tolerance=none: the task fails after this put", .{}),
            else => fail(error.NoSuchRecord, "no such record: {s}", .{e.val.slice()}),
        };
    }

    /// Why the latest `report` failed, as text ("no errant record reporter:
    /// ...", "errors.tolerance=none: ...", "no such record: <the host's
    /// message>"); "" after a success. Valid until the next report.
    pub fn message() []const u8 {
        return text;
    }
};

// ---------------------------------------------------------------------------
// Dynamic connectors (copycat:dynamic@0.1.0)

/// Ask the host to call the instance's `taskConfigs` again and, if the
/// configs changed, replace the connector's tasks (Kafka Connect's
/// `requestTaskReconfiguration`). Cheap; the host acts after the current
/// call returns. Ignored when called from a task.
pub fn requestTaskReconfiguration() void {
    if (!is_dynamic) @compileError("requestTaskReconfiguration: build a dynamic connector (guest-sdk/zig/build.sh --dynamic)");
    c.copycat_dynamic_context_request_task_reconfiguration();
}

/// Put the connector in FAILED with a message (Kafka Connect's
/// `raiseError`): the host stops the instance after the current call; the
/// tasks go on.
pub fn raiseError(comptime fmt: []const u8, args: anytype) void {
    if (!is_dynamic) @compileError("raiseError: build a dynamic connector (guest-sdk/zig/build.sh --dynamic)");
    const msg = std.fmt.allocPrint(allocator, fmt, args) catch return c.copycat_dynamic_context_raise_error(@ptrCast(@constCast(&abi.str("out of memory"))));
    defer allocator.free(msg);
    sanitize(msg);
    var w = abi.str(msg);
    c.copycat_dynamic_context_raise_error(@ptrCast(&w));
}

// ---------------------------------------------------------------------------
// Exports

/// Map a callback's outcome to wit-bindgen's `bool` + `err` convention,
/// the message malloc'ed for the glue's post-return to free.
fn report(result: Error!void, err: *abi.ConnectorError) bool {
    result catch |e| {
        err.* = .{
            .tag = switch (e) {
                error.Config => 0,
                error.Retriable => 1,
                else => 2,
            },
            .val = wstrOrEmpty(messageOf(e)),
        };
        clearError();
        return false;
    };
    clearError();
    return true;
}

/// The message of an error whose post-return the SDK replaced (poll,
/// apply): kept here until the next call instead of malloc'ed.
var static_message: std.ArrayList(u8) = .empty;

fn staticMessage(e: Error) abi.Str {
    static_message.clearRetainingCapacity();
    static_message.appendSlice(allocator, messageOf(e)) catch return abi.str("out of memory");
    sanitize(static_message.items);
    return abi.Str.of(static_message.items);
}

fn configOf(w: *const abi.Config) Config {
    return .{ .pairs = w.slice() };
}

fn notStarted() Error {
    return fatal("the task is not started", .{});
}

/// The `connector` interface, shared by sources and sinks.
fn ConnectorExports(comptime C: type, comptime kind: u8) type {
    return struct {
        fn describe(ret: *abi.PluginInfo) callconv(.c) void {
            const i: Info = C.info;
            ret.* = .{
                .name = wstrOrEmpty(i.name),
                .version = wstrOrEmpty(i.version),
                .kind = kind,
                .description = wstrOrEmpty(i.description),
                .config_def = configDef(i.config_def),
            };
        }

        fn validate(config: *abi.Config, ret: *abi.List(abi.ConfigProblem)) callconv(.c) void {
            defer freeConfig(config);
            var problems: Problems = .{};
            clearError();
            if (@hasDecl(C, "validate")) C.validate(configOf(config), &problems);
            clearError();
            ret.* = problems.list.take();
        }

        fn taskConfigs(config: *abi.Config, max_tasks: u32, ret: *abi.List(abi.Config), err: *abi.ConnectorError) callconv(.c) bool {
            defer freeConfig(config);
            var out: ConfigList = .{};
            clearError();
            const result: Error!void = if (@hasDecl(C, "taskConfigs"))
                C.taskConfigs(configOf(config), max_tasks, &out)
            else blk: {
                // Sources: one task; sinks: the consumer group spreads the
                // partitions over max_tasks identical tasks.
                const n = if (kind == 0) 1 else @max(max_tasks, 1);
                for (0..n) |_| out.add(configOf(config), &.{}) catch |e| break :blk e;
            };
            if (!report(result, err)) {
                out.discard();
                ret.* = .{};
                return false;
            }
            ret.* = out.list.take();
            return true;
        }

        fn exportAll() void {
            @export(&describe, .{ .name = "exports_copycat_connector_connector_describe" });
            @export(&validate, .{ .name = "exports_copycat_connector_connector_validate" });
            @export(&taskConfigs, .{ .name = "exports_copycat_connector_connector_task_configs" });
        }
    };
}

/// A connector's `Task`, started and stopped.
fn TaskSlot(comptime Task: type) type {
    return struct {
        var task: ?Task = null;

        fn start(config: *abi.Config, err: *abi.ConnectorError) callconv(.c) bool {
            defer freeConfig(config);
            clearError();
            stop();
            const result: Error!void = if (Task.start(configOf(config))) |t| {
                task = t;
            } else |e| e;
            return report(result, err);
        }

        fn stop() callconv(.c) void {
            if (task) |*t| if (@hasDecl(Task, "stop")) t.stop();
            task = null;
        }
    };
}

/// The dynamic `instance` export, when the world has it.
fn exportInstance(comptime C: type) void {
    if (!is_dynamic) {
        if (@hasDecl(C, "Instance")) @compileError("this connector declares an Instance: build it with guest-sdk/zig/build.sh --dynamic");
        return;
    }
    if (!@hasDecl(C, "Instance")) @compileError("the world is dynamic (--dynamic): declare `pub const Instance` with start, taskConfigs and monitor");
    const I = C.Instance;
    const S = struct {
        var instance: ?I = null;

        fn start(config: *abi.Config, ret: *bool, err: *abi.ConnectorError) callconv(.c) bool {
            defer freeConfig(config);
            clearError();
            stop();
            ret.* = false;
            const result: Error!void = if (I.start(configOf(config))) |i| {
                instance = i;
                ret.* = if (@hasDecl(I, "watches")) instance.?.watches() else true;
            } else |e| e;
            return report(result, err);
        }

        fn taskConfigs(max_tasks: u32, ret: *abi.List(abi.Config), err: *abi.ConnectorError) callconv(.c) bool {
            clearError();
            var out: ConfigList = .{};
            ret.* = .{};
            const result: Error!void = if (instance) |*i| i.taskConfigs(max_tasks, &out) else fatal("the instance is not started", .{});
            if (!report(result, err)) {
                out.discard();
                return false;
            }
            ret.* = out.list.take();
            return true;
        }

        fn monitor(err: *abi.ConnectorError) callconv(.c) bool {
            clearError();
            const result: Error!void = if (instance) |*i| (if (@hasDecl(I, "monitor")) i.monitor() else {}) else fatal("the instance is not started", .{});
            return report(result, err);
        }

        fn stop() callconv(.c) void {
            if (instance) |*i| if (@hasDecl(I, "stop")) i.stop();
            instance = null;
        }
    };
    @export(&S.start, .{ .name = "exports_copycat_dynamic_instance_start" });
    @export(&S.taskConfigs, .{ .name = "exports_copycat_dynamic_instance_task_configs" });
    @export(&S.monitor, .{ .name = "exports_copycat_dynamic_instance_monitor" });
    @export(&S.stop, .{ .name = "exports_copycat_dynamic_instance_stop" });
}

/// Export a source connector: `comptime { cc.exportSource(@This()); }`.
///
/// `C` declares `pub const info: cc.Info`, optionally
/// `pub fn validate(cc.Config, *cc.Problems) void` (default: no problems)
/// and `pub fn taskConfigs(cc.Config, max_tasks: u32, *cc.ConfigList)
/// cc.Error!void` (default: one task with the connector's config), a
/// `Task` type with
///   `pub fn start(cc.Config) cc.Error!Task`,
///   `pub fn poll(*Task, max_records: u32, *cc.SourceBatch) cc.Error!void`
///   (the batch is empty when poll is called; leave it empty when nothing
///   is ready),
///   optionally `pub fn commit(*Task, []const cc.SourcePosition) cc.Error!void`
///   and `pub fn stop(*Task) void`;
/// and, built with `--dynamic`, an `Instance` type with
///   `pub fn start(cc.Config) cc.Error!Instance`,
///   `pub fn taskConfigs(*Instance, max_tasks: u32, *cc.ConfigList) cc.Error!void`,
///   optionally `pub fn watches(*const Instance) bool` (default true),
///   `pub fn monitor(*Instance) cc.Error!void` and `pub fn stop(*Instance) void`.
pub fn exportSource(comptime C: type) void {
    if (!is_source) @compileError("exportSource: build with --world source (guest-sdk/zig/build.sh)");
    const Task = C.Task;
    const T = TaskSlot(Task);
    const S = struct {
        var out: ?SourceBatch = null;

        fn poll(max_records: u32, ret: *abi.SourceBatch, err: *abi.ConnectorError) callconv(.c) bool {
            clearError();
            if (out == null) out = SourceBatch.init(allocator);
            const b = &out.?;
            // The last batch's buffers are ours again: the post-return of
            // poll (src/post_return.c) leaves them to us.
            b.clear();
            const result: Error!void = if (T.task) |*t| t.poll(max_records, b) else notStarted();
            if (result) |_| {
                if (b.cols.cur.phase != .idle) {
                    b.cols.cur.cancel();
                    ret.* = .{};
                    err.* = .{ .tag = 2, .val = staticMessage(fatal("poll returned with a record begun and not ended (call end() or cancel())", .{})) };
                    clearError();
                    return false;
                }
                ret.* = b.toAbi();
                clearError();
                return true;
            } else |e| {
                b.clear();
                ret.* = .{};
                err.* = .{ .tag = switch (e) {
                    error.Config => 0,
                    error.Retriable => 1,
                    else => 2,
                }, .val = staticMessage(e) };
                clearError();
                return false;
            }
        }

        fn commit(list: *abi.List(abi.SourcePosition), err: *abi.ConnectorError) callconv(.c) bool {
            defer {
                for (list.slice()) |p| {
                    freeIn(p.partition);
                    freeIn(p.offset);
                }
                freeIn(list.*);
            }
            clearError();
            if (!@hasDecl(Task, "commit")) return report({}, err);
            const t = &(T.task orelse return report(notStarted(), err));
            const positions = allocator.alloc(SourcePosition, list.len) catch return report(error.OutOfMemory, err);
            defer allocator.free(positions);
            for (positions, list.slice()) |*p, w| p.* = .{ .partition = w.partition.slice(), .offset = w.offset.slice() };
            return report(t.commit(positions), err);
        }
    };
    ConnectorExports(C, 0).exportAll();
    exportInstance(C);
    @export(&T.start, .{ .name = "exports_copycat_connector_source_task_start" });
    @export(&S.poll, .{ .name = "exports_copycat_connector_source_task_poll" });
    @export(&S.commit, .{ .name = "exports_copycat_connector_source_task_commit" });
    @export(&T.stop, .{ .name = "exports_copycat_connector_source_task_stop" });
}

fn freeTopicPartitions(list: anytype) void {
    for (list.slice()) |tp| freeIn(tp.topic);
    freeIn(list.*);
}

/// Export a sink connector: `comptime { cc.exportSink(@This()); }`.
///
/// `C` declares `info`, optionally `validate` and `taskConfigs` (default:
/// `max_tasks` copies of the config), a `Task` type with
///   `pub fn start(cc.Config) cc.Error!Task`,
///   `pub fn put(*Task, *const cc.SinkBatch) cc.Error!void`,
///   optionally `pub fn open(*Task, []const cc.TopicPartition, *cc.Offsets) cc.Error!void`
///   (default: none, the consumer group's offsets are used),
///   `pub fn flush(*Task, []const cc.TopicPartitionOffset) cc.Error!void`,
///   `pub fn close(*Task, []const cc.TopicPartition) cc.Error!void` and
///   `pub fn stop(*Task) void`;
/// and, built with `--dynamic`, an `Instance` type (see `exportSource`).
pub fn exportSink(comptime C: type) void {
    if (!is_sink) @compileError("exportSink: build with --world sink (guest-sdk/zig/build.sh)");
    const Task = C.Task;
    const T = TaskSlot(Task);
    const S = struct {
        var view: ?SinkBatch = null;

        fn topicPartitions(list: *abi.List(abi.TopicPartition)) error{OutOfMemory}![]TopicPartition {
            const tps = try allocator.alloc(TopicPartition, list.len);
            for (tps, list.slice()) |*tp, w| tp.* = .{ .topic = w.topic.slice(), .partition = w.partition };
            return tps;
        }

        fn open(list: *abi.List(abi.TopicPartition), ret: *abi.List(abi.TopicPartitionOffset), err: *abi.ConnectorError) callconv(.c) bool {
            defer freeTopicPartitions(list);
            clearError();
            ret.* = .{};
            const t = &(T.task orelse return report(notStarted(), err));
            if (!@hasDecl(Task, "open")) return report({}, err);
            const tps = topicPartitions(list) catch return report(error.OutOfMemory, err);
            defer allocator.free(tps);
            var resume_at: Offsets = .{};
            const result = t.open(tps, &resume_at);
            if (result) |_| {
                ret.* = resume_at.list.take();
            } else |_| {
                for (resume_at.list.slice()) |x| hostFree(x.topic.ptr);
                hostFree(resume_at.list.items);
            }
            return report(result, err);
        }

        fn put(b: *abi.SinkBatch, err: *abi.ConnectorError) callconv(.c) bool {
            defer c.exports_copycat_connector_sink_task_sink_batch_free(@ptrCast(b));
            clearError();
            const t = &(T.task orelse return report(notStarted(), err));
            if (view == null) view = SinkBatch.init(allocator);
            const v = &view.?;
            v.load(b) catch |e| return report(fatal("a malformed batch from the host: {s}", .{messageOf(e)}), err);
            return report(t.put(v), err);
        }

        fn flush(list: *abi.List(abi.TopicPartitionOffset), err: *abi.ConnectorError) callconv(.c) bool {
            defer freeTopicPartitions(list);
            clearError();
            const t = &(T.task orelse return report(notStarted(), err));
            if (!@hasDecl(Task, "flush")) return report({}, err);
            const tpos = allocator.alloc(TopicPartitionOffset, list.len) catch return report(error.OutOfMemory, err);
            defer allocator.free(tpos);
            for (tpos, list.slice()) |*x, w| x.* = .{ .topic = w.topic.slice(), .partition = w.partition, .offset = w.offset };
            return report(t.flush(tpos), err);
        }

        fn close(list: *abi.List(abi.TopicPartition), err: *abi.ConnectorError) callconv(.c) bool {
            defer freeTopicPartitions(list);
            clearError();
            const t = &(T.task orelse return report({}, err));
            if (!@hasDecl(Task, "close")) return report({}, err);
            const tps = topicPartitions(list) catch return report(error.OutOfMemory, err);
            defer allocator.free(tps);
            return report(t.close(tps), err);
        }
    };
    ConnectorExports(C, 1).exportAll();
    exportInstance(C);
    @export(&T.start, .{ .name = "exports_copycat_connector_sink_task_start" });
    @export(&S.open, .{ .name = "exports_copycat_connector_sink_task_open" });
    @export(&S.put, .{ .name = "exports_copycat_connector_sink_task_put" });
    @export(&S.flush, .{ .name = "exports_copycat_connector_sink_task_flush" });
    @export(&S.close, .{ .name = "exports_copycat_connector_sink_task_close" });
    @export(&T.stop, .{ .name = "exports_copycat_connector_sink_task_stop" });
}

/// Export a transform: `comptime { cc.exportTransform(@This()); }`.
///
/// `C` declares `pub const info: cc.Info` (its config keys are the
/// settings after `transforms.<alias>.`), optionally `pub fn
/// validate(cc.Config, *cc.Problems) void`, and a `Transform` type with
///   `pub fn configure(cc.Config) cc.Error!Transform` and
///   `pub fn apply(*Transform, *const cc.TransformInput, *cc.TransformOutput) cc.Error!void`.
/// `apply` gets the output empty, holding the input's topics and schemas.
pub fn exportTransform(comptime C: type) void {
    if (!is_transform) @compileError("exportTransform: build with --world transform (guest-sdk/zig/build.sh)");
    const X = C.Transform;
    const S = struct {
        var transform: ?X = null;
        var in: ?TransformInput = null;
        var out: ?TransformOutput = null;
        /// The input of the latest apply: freed at the next one (the
        /// output may point into it: its topics and schemas).
        var held: ?abi.RecordBatch = null;

        fn describe(ret: *abi.TransformInfo) callconv(.c) void {
            const i: Info = C.info;
            ret.* = .{
                .name = wstrOrEmpty(i.name),
                .version = wstrOrEmpty(i.version),
                .description = wstrOrEmpty(i.description),
                .config_def = configDef(i.config_def),
            };
        }

        fn validate(config: *abi.Config, ret: *abi.List(abi.ConfigProblem)) callconv(.c) void {
            defer freeConfig(config);
            var problems: Problems = .{};
            clearError();
            if (@hasDecl(C, "validate")) C.validate(configOf(config), &problems);
            clearError();
            ret.* = problems.list.take();
        }

        fn toError(e: Error, err: *abi.TransformError, comptime static: bool) void {
            const text = if (static) staticMessage(e) else wstrOrEmpty(messageOf(e));
            err.* = switch (e) {
                error.Config => .{ .tag = 0, .val = .{ .text = text } },
                error.Record => .{ .tag = 1, .val = .{ .record = .{ .f0 = error_record, .f1 = text } } },
                else => .{ .tag = 2, .val = .{ .text = text } },
            };
            clearError();
        }

        fn configure(config: *abi.Config, err: *abi.TransformError) callconv(.c) bool {
            defer freeConfig(config);
            clearError();
            if (transform) |*t| if (@hasDecl(X, "deinit")) t.deinit();
            transform = null;
            if (X.configure(configOf(config))) |t| {
                transform = t;
                clearError();
                return true;
            } else |e| {
                toError(e, err, false);
                return false;
            }
        }

        fn release() void {
            if (held) |*h| c.exports_copycat_transform_transformer_record_batch_free(@ptrCast(h));
            held = null;
        }

        fn apply(b: *abi.RecordBatch, ret: *abi.RecordBatch, err: *abi.TransformError) callconv(.c) bool {
            clearError();
            release();
            held = b.*;
            if (in == null) in = TransformInput.init(allocator);
            if (out == null) out = TransformOutput.init(allocator);
            const input = &in.?;
            const output = &out.?;
            ret.* = .{};
            const result: Error!void = blk: {
                const t = &(transform orelse break :blk fatal("the transform is not configured", .{}));
                input.load(&held.?) catch |e| break :blk fatal("a malformed batch from the host: {s}", .{messageOf(e)});
                output.reset(input) catch |e| break :blk e;
                break :blk t.apply(input, output);
            };
            if (result) |_| {
                if (output.cols.cur.phase != .idle) {
                    output.cols.cur.cancel();
                    toError(fatal("apply returned with a record begun and not ended (call end() or cancel())", .{}), err, true);
                    return false;
                }
                ret.* = output.toAbi();
                return true;
            } else |e| {
                toError(e, err, true);
                return false;
            }
        }
    };
    @export(&S.describe, .{ .name = "exports_copycat_transform_transformer_describe" });
    @export(&S.validate, .{ .name = "exports_copycat_transform_transformer_validate" });
    @export(&S.configure, .{ .name = "exports_copycat_transform_transformer_configure" });
    @export(&S.apply, .{ .name = "exports_copycat_transform_transformer_apply" });
}
