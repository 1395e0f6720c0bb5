//! The Zig SDK for Copycat connectors.
//!
//! A Copycat connector is a WebAssembly component implementing the world
//! `source` or `sink` of the WIT package `copycat:connector@0.1.0`
//! (wit/connector/). This module hides the bindings `wit-bindgen c`
//! generates for those worlds (translated to Zig with `zig translate-c` and
//! imported here as the module `bindings`): a connector is a Zig file that
//! declares its plugin info, an optional `validate` and `taskConfigs`, and a
//! `Task` type, and exports them with one call:
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
//!         pub fn poll(self: *Task, max_records: u32, batch: *cc.Batch) cc.Error!void { ... }
//!     };
//!
//!     comptime {
//!         cc.exportSource(@This());
//!     }
//!
//! Errors: every fallible function returns `cc.Error` (`error.Config`,
//! `error.Retriable`, `error.Fatal`, `error.OutOfMemory`), which the SDK maps
//! to the WIT `connector-error` variants. Make one with a message with
//! `cc.configError`, `cc.retriable` or `cc.fatal` (std.fmt syntax):
//! `return cc.fatal("cannot open {s}: {s}", .{ path, cc.strerror(e) });`.
//! Never panic: `@panic`, `unreachable` and safety checks trap, and a trap
//! fails the task at once with no retry. Build with `-O ReleaseSmall` (or
//! ReleaseSafe to keep the safety checks).
//!
//! Memory: everything the SDK passes to a callback (configs, records,
//! partitions) is borrowed for the duration of the call; copy what you keep
//! (with `cc.allocator`, malloc underneath). Everything you give the SDK
//! (records, problems, task configs) is copied.
//!
//! Each task runs in its own instance, so the SDK keeps the started `Task`
//! in a global; calls never overlap.

const std = @import("std");
const c = @import("bindings");

/// The allocator for connector state: libc's malloc (wasi-libc).
pub const allocator = std.heap.c_allocator;

// ---------------------------------------------------------------------------
// Errors

/// What a fallible callback returns.
pub const Error = error{
    /// connector-error::config: a bad config; the task stays failed.
    Config,
    /// connector-error::retriable: transient; the host retries the call.
    Retriable,
    /// connector-error::fatal: the task fails.
    Fatal,
    /// Reported as connector-error::fatal("out of memory").
    OutOfMemory,
};

var error_message: ?[]u8 = null;

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

/// The message of the latest error ("" if none).
pub fn errorMessage() []const u8 {
    return error_message orelse "";
}

const libc_strerror = @extern(*const fn (c_int) callconv(.c) [*:0]const u8, .{ .name = "strerror" });

/// The text of a libc errno value (for messages on file errors).
pub fn strerror(e: anytype) []const u8 {
    const n: c_int = switch (@typeInfo(@TypeOf(e))) {
        .@"enum" => @intCast(@intFromEnum(e)),
        else => @intCast(e),
    };
    return std.mem.span(libc_strerror(n));
}

// ---------------------------------------------------------------------------
// Canonical-ABI helpers (the bindings' world-specific helper types)

/// The world's `string` and `list<u8>` types (`source_string_t` or
/// `sink_string_t`; the interface types are named alike in both worlds).
const WString = @FieldType(c.copycat_connector_types_config_problem_t, "key");
const WOptBytes = @FieldType(c.copycat_connector_types_header_t, "value");
const WPair = @typeInfo(@FieldType(c.copycat_connector_types_config_t, "ptr")).pointer.child;

fn slice(s: WString) []const u8 {
    return if (s.len == 0) "" else s.ptr[0..s.len];
}

fn optSlice(b: WOptBytes) ?[]const u8 {
    if (!b.is_some) return null;
    return if (b.val.len == 0) "" else b.val.ptr[0..b.val.len];
}

/// malloc'ed memory for the host; the bindings' post-return functions free
/// it with free(). An empty list or string must own nothing: NULL, never a
/// dangling pointer (wasmtime rejects those as out of bounds).
fn hostAlloc(comptime T: type, n: usize) error{OutOfMemory}!?[*]T {
    if (n == 0) return null;
    const p = std.c.malloc(n * @sizeOf(T)) orelse return error.OutOfMemory;
    return @ptrCast(@alignCast(p));
}

fn hostFree(p: anytype) void {
    std.c.free(@ptrCast(p));
}

/// A host-owned copy of `s`, made valid UTF-8 (strings crossing into the
/// host must be, or the call traps): invalid bytes become '?'.
fn wstr(s: []const u8) error{OutOfMemory}!WString {
    const p = try hostAlloc(u8, s.len) orelse return .{ .ptr = null, .len = 0 };
    @memcpy(p[0..s.len], s);
    if (!std.unicode.utf8ValidateSlice(s)) {
        var i: usize = 0;
        while (i < s.len) {
            const n = std.unicode.utf8ByteSequenceLength(s[i]) catch 0;
            if (n == 0 or i + n > s.len or !std.unicode.utf8ValidateSlice(s[i .. i + n])) {
                p[i] = '?';
                i += 1;
            } else i += n;
        }
    }
    return .{ .ptr = p, .len = s.len };
}

fn wbytes(b: ?[]const u8) error{OutOfMemory}!WOptBytes {
    var w: WOptBytes = .{};
    if (b) |bytes| {
        w.is_some = true;
        if (try hostAlloc(u8, bytes.len)) |p| {
            @memcpy(p[0..bytes.len], bytes);
            w.val = .{ .ptr = p, .len = bytes.len };
        }
    }
    return w;
}

/// A growable list of `T` in malloc'ed memory, handed to the host as
/// `{ptr, len}` (ptr NULL when empty).
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
    };
}

// ---------------------------------------------------------------------------
// Configs

/// A configuration, borrowed: the operator's key/value pairs (keys are
/// unique). Every key is passed through, including the host's (`name`,
/// `tasks.max`, `grants.*`).
pub const Config = struct {
    pairs: []const WPair,

    /// The value of `key`, or null.
    pub fn get(self: Config, key: []const u8) ?[]const u8 {
        for (self.pairs) |p| if (std.mem.eql(u8, slice(p.f0), key)) return slice(p.f1);
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
        return .{ .inner = std.mem.splitScalar(u8, self.get(key) orelse "", ',') };
    }

    fn rangeError(comptime T: type, key: []const u8, v: []const u8, min: T, max: T) Error {
        if (max == std.math.maxInt(T))
            return configError("config '{s}': invalid value '{s}': expected an integer >= {d}", .{ key, v, min });
        return configError("config '{s}': invalid value '{s}': expected an integer from {d} to {d}", .{ key, v, min, max });
    }
};

pub const ListIterator = struct {
    inner: std.mem.SplitIterator(u8, .scalar),

    pub fn next(self: *ListIterator) ?[]const u8 {
        while (self.inner.next()) |item| {
            const t = trim(item);
            if (t.len > 0) return t;
        }
        return null;
    }
};

fn trim(s: []const u8) []const u8 {
    return std.mem.trim(u8, s, " \t\r\n");
}

/// Task configs, built by `taskConfigs`.
pub const ConfigList = struct {
    list: HostList(c.copycat_connector_types_config_t) = .{},

    /// Append a copy of `base` with the `overrides` (key, value) set.
    pub fn add(self: *ConfigList, base: Config, overrides: []const [2][]const u8) error{OutOfMemory}!void {
        const w = try self.list.push();
        var pairs: HostList(WPair) = .{};
        errdefer freeConfig(pairs.slice());
        for (base.pairs) |p| {
            if (overridden(overrides, slice(p.f0))) continue;
            const q = try pairs.push();
            q.f0 = try wstr(slice(p.f0));
            q.f1 = try wstr(slice(p.f1));
        }
        for (overrides) |o| {
            const q = try pairs.push();
            q.f0 = try wstr(o[0]);
            q.f1 = try wstr(o[1]);
        }
        if (pairs.len == 0) {
            hostFree(pairs.items);
            pairs.items = null;
        }
        w.* = .{ .ptr = pairs.items, .len = pairs.len };
    }

    fn overridden(overrides: []const [2][]const u8, key: []const u8) bool {
        for (overrides) |o| if (std.mem.eql(u8, o[0], key)) return true;
        return false;
    }
};

fn freeConfig(pairs: []WPair) void {
    for (pairs) |p| {
        hostFree(p.f0.ptr);
        hostFree(p.f1.ptr);
    }
    if (pairs.len > 0) hostFree(pairs.ptr);
}

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
    list: HostList(c.copycat_connector_types_config_problem_t) = .{},

    /// Add a problem on `key` ("" for the config as a whole).
    pub fn add(self: *Problems, key: []const u8, comptime fmt: []const u8, args: anytype) void {
        const msg = std.fmt.allocPrint(allocator, fmt, args) catch return;
        defer allocator.free(msg);
        self.push(key, msg);
    }

    /// If `result` (of a Config getter) is an error, add a problem on `key`
    /// with its message.
    pub fn check(self: *Problems, key: []const u8, result: anytype) void {
        _ = result catch {
            self.push(key, if (errorMessage().len > 0) errorMessage() else "invalid value");
            clearError();
        };
    }

    fn push(self: *Problems, key: []const u8, msg: []const u8) void {
        const p = self.list.push() catch return;
        p.key = wstr(key) catch .{ .ptr = null, .len = 0 };
        p.message = wstr(msg) catch .{ .ptr = null, .len = 0 };
    }
};

// ---------------------------------------------------------------------------
// Host functions

pub const Level = enum(u8) { trace, debug, info, warn, err };

/// One line in the worker's log (the host adds connector name and task id).
pub fn log(level: Level, comptime fmt: []const u8, args: anytype) void {
    const msg = std.fmt.allocPrint(allocator, fmt, args) catch return;
    defer allocator.free(msg);
    var w = wstr(msg) catch return;
    c.copycat_connector_logging_log(@intFromEnum(level), &w);
    hostFree(w.ptr);
}

pub const clock = struct {
    /// Milliseconds since the Unix epoch.
    pub fn nowMs() i64 {
        return c.copycat_connector_clock_now_ms();
    }
    /// Nanoseconds on a monotonic clock (for intervals).
    pub fn monotonicNs() u64 {
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
// Sources (world `source`)

pub const Header = struct {
    key: []const u8,
    value: ?[]const u8,
};

/// A record for Kafka; the SDK copies every field.
pub const SourceRecord = struct {
    /// The input stream and the position in it.
    source_partition: []const u8,
    source_offset: []const u8,
    /// null: the connector's `topic`.
    topic: ?[]const u8 = null,
    /// null: the producer's partitioner chooses.
    partition: ?i32 = null,
    key: ?[]const u8 = null,
    /// null: a tombstone.
    value: ?[]const u8 = null,
    headers: []const Header = &.{},
    /// null: Kafka stamps it.
    timestamp: ?i64 = null,
};

/// The records of one `poll`.
pub const Batch = struct {
    list: HostList(c.copycat_connector_types_source_record_t) = .{},

    /// Append a copy of `record`.
    pub fn add(self: *Batch, record: SourceRecord) error{OutOfMemory}!void {
        const w = try self.list.push();
        w.source_partition = try wstr(record.source_partition);
        w.source_offset = try wstr(record.source_offset);
        if (record.topic) |t| w.topic = .{ .is_some = true, .val = try wstr(t) };
        if (record.partition) |p| w.partition = .{ .is_some = true, .val = p };
        w.key = try wbytes(record.key);
        w.value = try wbytes(record.value);
        if (try hostAlloc(c.copycat_connector_types_header_t, record.headers.len)) |hs| {
            for (record.headers, 0..) |h, i| hs[i] = .{ .key = try wstr(h.key), .value = try wbytes(h.value) };
            w.headers = .{ .ptr = hs, .len = record.headers.len };
        }
        if (record.timestamp) |ts| w.timestamp = .{ .is_some = true, .val = ts };
    }

    /// The number of records added so far.
    pub fn count(self: Batch) usize {
        return self.list.len;
    }
};

/// Whether the bindings are the world `source` (else `sink`).
const is_source = @hasDecl(c, "exports_copycat_connector_source_task_poll");

/// A source partition and its offset.
pub const SourcePosition = struct {
    partition: []const u8,
    offset: []const u8,
};

/// Committed source offsets, as read by `offsets.read`.
pub const Positions = struct {
    raw: if (is_source) c.copycat_connector_offsets_list_source_position_t else void,

    /// The committed offset of `partition`, or null.
    pub fn get(self: Positions, partition: []const u8) ?[]const u8 {
        if (!is_source) @compileError("cc.Positions is for source connectors");
        if (self.raw.len == 0) return null;
        for (self.raw.ptr[0..self.raw.len]) |p|
            if (std.mem.eql(u8, slice(p.partition), partition)) return slice(p.offset);
        return null;
    }

    pub fn deinit(self: *Positions) void {
        if (!is_source) @compileError("cc.Positions is for source connectors");
        c.copycat_connector_offsets_list_source_position_free(&self.raw);
    }
};

/// The host's offset store (sources only).
pub const offsets = struct {
    /// The last committed offset of each of `partitions` that has one.
    pub fn read(partitions: []const []const u8) error{OutOfMemory}!Positions {
        if (!is_source) @compileError("cc.offsets.read is for source connectors: the sink world has no offsets import");
        var arg: c.copycat_connector_offsets_list_source_partition_t = .{};
        if (try hostAlloc(WString, partitions.len)) |p| {
            arg = .{ .ptr = p, .len = partitions.len };
            for (partitions, 0..) |name, i| p[i] = wstr(name) catch .{ .ptr = null, .len = 0 };
        }
        defer c.copycat_connector_offsets_list_source_partition_free(&arg);
        var out: Positions = .{ .raw = .{} };
        c.copycat_connector_offsets_read(&arg, &out.raw);
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
// Sinks (world `sink`)

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

/// A record from Kafka, borrowed for the `put` call.
pub const SinkRecord = struct {
    topic: []const u8,
    partition: i32,
    offset: i64,
    key: ?[]const u8,
    /// null: a null value (tombstone).
    value: ?[]const u8,
    headers: []const Header,
    timestamp: ?i64,
};

/// The offsets `open` returns: the partitions whose progress the task keeps.
pub const Offsets = struct {
    list: HostList(c.copycat_connector_types_topic_partition_offset_t) = .{},

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
///     cc.errant.report(i, why) catch
///         return cc.fatal("offset {d}: {s} ({s})", .{ r.offset, why, cc.errant.message() });
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
        /// The reason could not be copied for the host.
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

    /// Report record `index` (from 0, in the records the running `put`
    /// received) as errant because of `reason` (the host keeps its first
    /// 4 KiB; invalid UTF-8 becomes '?'). Reporting a record again in the
    /// same `put` changes nothing.
    pub fn report(index: usize, reason: []const u8) ReportError!void {
        if (is_source) @compileError("cc.errant is for sink connectors: the host refuses a source that imports the reporter");
        const i = std.math.cast(u32, index) orelse return fail(error.NoSuchRecord, "no such record: record {d}", .{index});
        var w = wstr(reason) catch return fail(error.OutOfMemory, "out of memory", .{});
        defer hostFree(w.ptr);
        var e: c.copycat_errant_reporter_report_error_t = std.mem.zeroes(c.copycat_errant_reporter_report_error_t);
        if (c.copycat_errant_reporter_report(i, &w, &e)) {
            if (owned) |o| allocator.free(o);
            owned = null;
            text = "";
            return;
        }
        defer c.copycat_errant_reporter_report_error_free(&e);
        return switch (e.tag) {
            c.COPYCAT_ERRANT_REPORTER_REPORT_ERROR_UNAVAILABLE => fail(error.Unavailable, "no errant record reporter: the connector sets neither errors.deadletterqueue.topic.name nor errors.log.enable", .{}),
            c.COPYCAT_ERRANT_REPORTER_REPORT_ERROR_TOLERANCE_EXCEEDED => fail(error.ToleranceExceeded, "errors.tolerance=none: the task fails after this put", .{}),
            else => fail(error.NoSuchRecord, "no such record: {s}", .{slice(e.val.no_such_record)}),
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
// Exports

const ErrorT = c.copycat_connector_types_connector_error_t;

/// Map a callback's outcome to wit-bindgen's `bool` + `err` convention.
fn report(result: Error!void, err: *ErrorT) bool {
    result catch |e| {
        const msg = switch (e) {
            error.OutOfMemory => "out of memory",
            else => if (errorMessage().len > 0) errorMessage() else "(the connector gave no message)",
        };
        err.* = .{};
        err.tag = switch (e) {
            error.Config => 0,
            error.Retriable => 1,
            error.Fatal, error.OutOfMemory => 2,
        };
        // The three variants share one layout.
        err.val.fatal = wstr(msg) catch .{ .ptr = null, .len = 0 };
        clearError();
        return false;
    };
    clearError();
    return true;
}

fn configOf(w: *const c.copycat_connector_types_config_t) Config {
    return .{ .pairs = if (w.len == 0) &.{} else w.ptr[0..w.len] };
}

fn notStarted() Error {
    return fatal("the task is not started", .{});
}

/// The `connector` interface, shared by both worlds.
fn ConnectorExports(comptime C: type, comptime kind: u8) type {
    return struct {
        fn describe(ret: *c.copycat_connector_types_plugin_info_t) callconv(.c) void {
            const i: Info = C.info;
            ret.* = .{};
            ret.name = wstr(i.name) catch .{};
            ret.version = wstr(i.version) catch .{};
            ret.kind = kind;
            ret.description = wstr(i.description) catch .{};
            const keys = hostAlloc(c.copycat_connector_types_config_key_t, i.config_def.len) catch null;
            if (keys) |ks| {
                for (i.config_def, 0..) |k, n| {
                    ks[n] = .{
                        .name = wstr(k.name) catch .{},
                        .type = @intFromEnum(k.type),
                        .required = k.required,
                        .doc = wstr(k.doc) catch .{},
                        .importance = @intFromEnum(k.importance),
                    };
                    if (k.default) |d| ks[n].default_value = .{ .is_some = true, .val = wstr(d) catch .{} };
                }
                ret.config_def = .{ .ptr = ks, .len = i.config_def.len };
            }
        }

        fn validate(
            config: *c.copycat_connector_types_config_t,
            ret: *c.exports_copycat_connector_connector_list_config_problem_t,
        ) callconv(.c) void {
            defer c.copycat_connector_types_config_free(config);
            var problems: Problems = .{};
            clearError();
            if (@hasDecl(C, "validate")) C.validate(configOf(config), &problems);
            clearError();
            ret.* = .{ .ptr = problems.list.items, .len = problems.list.len };
        }

        fn taskConfigs(
            config: *c.copycat_connector_types_config_t,
            max_tasks: u32,
            ret: *c.exports_copycat_connector_connector_list_config_t,
            err: *ErrorT,
        ) callconv(.c) bool {
            defer c.copycat_connector_types_config_free(config);
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
                for (out.list.slice()) |*w| freeConfig(if (w.len == 0) &.{} else w.ptr[0..w.len]);
                hostFree(out.list.items);
                return false;
            }
            ret.* = .{ .ptr = out.list.items, .len = out.list.len };
            return true;
        }

        fn exportAll() void {
            @export(&describe, .{ .name = "exports_copycat_connector_connector_describe" });
            @export(&validate, .{ .name = "exports_copycat_connector_connector_validate" });
            @export(&taskConfigs, .{ .name = "exports_copycat_connector_connector_task_configs" });
        }
    };
}

/// Export a source connector: `comptime { cc.exportSource(@This()); }`.
///
/// `C` declares `pub const info: cc.Info`, optionally
/// `pub fn validate(cc.Config, *cc.Problems) void` (default: no problems)
/// and `pub fn taskConfigs(cc.Config, max_tasks: u32, *cc.ConfigList)
/// cc.Error!void` (default: one task with the connector's config), and a
/// `Task` type with
///   `pub fn start(cc.Config) cc.Error!Task`,
///   `pub fn poll(*Task, max_records: u32, *cc.Batch) cc.Error!void`,
///   optionally `pub fn commit(*Task, []const cc.SourcePosition) cc.Error!void`
///   and `pub fn stop(*Task) void`.
pub fn exportSource(comptime C: type) void {
    const Task = C.Task;
    const S = struct {
        var task: ?Task = null;

        fn start(config: *c.copycat_connector_types_config_t, err: *ErrorT) callconv(.c) bool {
            defer c.copycat_connector_types_config_free(config);
            clearError();
            if (task) |*t| if (@hasDecl(Task, "stop")) t.stop();
            task = null;
            const result: Error!void = if (Task.start(configOf(config))) |t| {
                task = t;
            } else |e| e;
            return report(result, err);
        }

        fn poll(max_records: u32, ret: *c.exports_copycat_connector_source_task_list_source_record_t, err: *ErrorT) callconv(.c) bool {
            var batch: Batch = .{};
            clearError();
            const result: Error!void = if (task) |*t| t.poll(max_records, &batch) else notStarted();
            ret.* = .{ .ptr = batch.list.items, .len = batch.list.len };
            if (result) |_| {} else |_| {
                c.exports_copycat_connector_source_task_list_source_record_free(ret); // frees ptr when len > 0
                ret.* = .{};
            }
            if (ret.len == 0) { // an empty list owns nothing: ptr NULL
                hostFree(batch.list.items);
                ret.* = .{};
            }
            return report(result, err);
        }

        fn commit(list: *c.exports_copycat_connector_source_task_list_source_position_t, err: *ErrorT) callconv(.c) bool {
            defer c.exports_copycat_connector_source_task_list_source_position_free(list);
            clearError();
            if (!@hasDecl(Task, "commit")) return report({}, err);
            const t = &(task orelse return report(notStarted(), err));
            const positions = allocator.alloc(SourcePosition, list.len) catch return report(error.OutOfMemory, err);
            defer allocator.free(positions);
            for (positions, 0..) |*p, i| p.* = .{ .partition = slice(list.ptr[i].partition), .offset = slice(list.ptr[i].offset) };
            return report(t.commit(positions), err);
        }

        fn stop() callconv(.c) void {
            if (task) |*t| if (@hasDecl(Task, "stop")) t.stop();
            task = null;
        }
    };
    ConnectorExports(C, 0).exportAll();
    @export(&S.start, .{ .name = "exports_copycat_connector_source_task_start" });
    @export(&S.poll, .{ .name = "exports_copycat_connector_source_task_poll" });
    @export(&S.commit, .{ .name = "exports_copycat_connector_source_task_commit" });
    @export(&S.stop, .{ .name = "exports_copycat_connector_source_task_stop" });
}

/// Export a sink connector: `comptime { cc.exportSink(@This()); }`.
///
/// `C` declares `info`, optionally `validate` and `taskConfigs` (default:
/// `max_tasks` copies of the config), and a `Task` type with
///   `pub fn start(cc.Config) cc.Error!Task`,
///   `pub fn put(*Task, []const cc.SinkRecord) cc.Error!void`,
///   optionally `pub fn open(*Task, []const cc.TopicPartition, *cc.Offsets) cc.Error!void`
///   (default: none, the consumer group's offsets are used),
///   `pub fn flush(*Task, []const cc.TopicPartitionOffset) cc.Error!void`,
///   `pub fn close(*Task, []const cc.TopicPartition) cc.Error!void` and
///   `pub fn stop(*Task) void`.
pub fn exportSink(comptime C: type) void {
    const Task = C.Task;
    const S = struct {
        var task: ?Task = null;

        fn start(config: *c.copycat_connector_types_config_t, err: *ErrorT) callconv(.c) bool {
            defer c.copycat_connector_types_config_free(config);
            clearError();
            if (task) |*t| if (@hasDecl(Task, "stop")) t.stop();
            task = null;
            const result: Error!void = if (Task.start(configOf(config))) |t| {
                task = t;
            } else |e| e;
            return report(result, err);
        }

        fn topicPartitions(w: anytype) error{OutOfMemory}![]TopicPartition {
            const tps = try allocator.alloc(TopicPartition, w.len);
            for (tps, 0..) |*tp, i| tp.* = .{ .topic = slice(w.ptr[i].topic), .partition = w.ptr[i].partition };
            return tps;
        }

        fn open(
            list: *c.exports_copycat_connector_sink_task_list_topic_partition_t,
            ret: *c.exports_copycat_connector_sink_task_list_topic_partition_offset_t,
            err: *ErrorT,
        ) callconv(.c) bool {
            defer c.exports_copycat_connector_sink_task_list_topic_partition_free(list);
            clearError();
            var resume_at: Offsets = .{};
            ret.* = .{};
            const t = &(task orelse return report(notStarted(), err));
            if (!@hasDecl(Task, "open")) return report({}, err);
            const tps = topicPartitions(list) catch return report(error.OutOfMemory, err);
            defer allocator.free(tps);
            const result = t.open(tps, &resume_at);
            ret.* = .{ .ptr = resume_at.list.items, .len = resume_at.list.len };
            if (result) |_| {} else |_| {
                c.exports_copycat_connector_sink_task_list_topic_partition_offset_free(ret);
                ret.* = .{};
            }
            if (ret.len == 0) {
                hostFree(resume_at.list.items);
                ret.* = .{};
            }
            return report(result, err);
        }

        fn put(list: *c.exports_copycat_connector_sink_task_list_sink_record_t, err: *ErrorT) callconv(.c) bool {
            defer c.exports_copycat_connector_sink_task_list_sink_record_free(list);
            clearError();
            const t = &(task orelse return report(notStarted(), err));
            const raw = if (list.len == 0) &[_]c.copycat_connector_types_sink_record_t{} else list.ptr[0..list.len];
            var nheaders: usize = 0;
            for (raw) |r| nheaders += r.headers.len;
            const records = allocator.alloc(SinkRecord, raw.len) catch return report(error.OutOfMemory, err);
            defer allocator.free(records);
            const headers = allocator.alloc(Header, nheaders) catch return report(error.OutOfMemory, err);
            defer allocator.free(headers);
            var h: usize = 0;
            for (raw, records) |r, *out| {
                const hs = headers[h .. h + r.headers.len];
                for (hs, 0..) |*x, j| x.* = .{ .key = slice(r.headers.ptr[j].key), .value = optSlice(r.headers.ptr[j].value) };
                h += r.headers.len;
                out.* = .{
                    .topic = slice(r.topic),
                    .partition = r.partition,
                    .offset = r.offset,
                    .key = optSlice(r.key),
                    .value = optSlice(r.value),
                    .headers = hs,
                    .timestamp = if (r.timestamp.is_some) r.timestamp.val else null,
                };
            }
            return report(t.put(records), err);
        }

        fn flush(list: *c.exports_copycat_connector_sink_task_list_topic_partition_offset_t, err: *ErrorT) callconv(.c) bool {
            defer c.exports_copycat_connector_sink_task_list_topic_partition_offset_free(list);
            clearError();
            const t = &(task orelse return report(notStarted(), err));
            if (!@hasDecl(Task, "flush")) return report({}, err);
            const tpos = allocator.alloc(TopicPartitionOffset, list.len) catch return report(error.OutOfMemory, err);
            defer allocator.free(tpos);
            for (tpos, 0..) |*x, i| x.* = .{ .topic = slice(list.ptr[i].topic), .partition = list.ptr[i].partition, .offset = list.ptr[i].offset };
            return report(t.flush(tpos), err);
        }

        fn close(list: *c.exports_copycat_connector_sink_task_list_topic_partition_t, err: *ErrorT) callconv(.c) bool {
            defer c.exports_copycat_connector_sink_task_list_topic_partition_free(list);
            clearError();
            const t = &(task orelse return report({}, err));
            if (!@hasDecl(Task, "close")) return report({}, err);
            const tps = topicPartitions(list) catch return report(error.OutOfMemory, err);
            defer allocator.free(tps);
            return report(t.close(tps), err);
        }

        fn stop() callconv(.c) void {
            if (task) |*t| if (@hasDecl(Task, "stop")) t.stop();
            task = null;
        }
    };
    ConnectorExports(C, 1).exportAll();
    @export(&S.start, .{ .name = "exports_copycat_connector_sink_task_start" });
    @export(&S.open, .{ .name = "exports_copycat_connector_sink_task_open" });
    @export(&S.put, .{ .name = "exports_copycat_connector_sink_task_put" });
    @export(&S.flush, .{ .name = "exports_copycat_connector_sink_task_flush" });
    @export(&S.close, .{ .name = "exports_copycat_connector_sink_task_close" });
    @export(&S.stop, .{ .name = "exports_copycat_connector_sink_task_stop" });
}
