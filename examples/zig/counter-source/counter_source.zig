//! counter-source: counts upwards on `streams` source partitions
//! ({"stream":"stream-0"} ... {"stream":"stream-<n-1>"}), `count` records
//! each (`0`: forever). Stream j's records carry the source offset
//! {"seq":<seq>} and the key `stream-<j>:<seq>`; the value is `<seq>` padded
//! with '.' to `value.size` bytes, or, with `typed=true`, a struct
//! copycat.examples.Count. A restarted task resumes every stream after its
//! last committed offset. With `streams.file` set, the connector's running
//! instance watches that file for the number of streams and asks the host
//! to reconfigure the tasks when it changes. Behaviour: examples/SPEC.md.

const std = @import("std");
const cc = @import("copycat");

pub const info: cc.Info = .{
    .name = "counter-source",
    .version = "0.1.0",
    .description = "Counts upwards on N streams into a Kafka topic",
    .config_def = &.{
        .{ .name = "topic", .type = .string, .required = true, .doc = "Kafka topic" },
        .{ .name = "streams", .type = .int, .default = "1", .doc = "Streams = source partitions {\"stream\":\"stream-0\"} ... {\"stream\":\"stream-<n-1>\"}" },
        .{ .name = "count", .type = .long, .default = "100", .doc = "Records per stream; 0 = unbounded" },
        .{ .name = "typed", .type = .boolean, .default = "false", .doc = "Typed records (a string key, a copycat.examples.Count value) instead of raw bytes" },
        .{ .name = "value.size", .type = .int, .default = "0", .doc = "Raw bytes only: pad each value with '.' up to this many bytes" },
        .{ .name = "streams.file", .type = .string, .default = "", .doc = "A file (granted with grants.fs.read) holding the number of streams, watched while the connector runs" },
    },
};

/// The typed value; its schema is derived from the type at compile time.
const Count = struct {
    pub const connect_name = "copycat.examples.Count";
    stream: []const u8,
    seq: i64,
    even: bool,
    note: ?[]const u8,
};

/// Task-config key: the stream indices one task owns (comma-separated).
const assigned_key = "counter.streams.assigned";

fn streams(config: cc.Config) cc.Error!u32 {
    return config.int(u32, "streams", 1, 1, std.math.maxInt(i32));
}
fn count(config: cc.Config) cc.Error!u64 {
    return config.int(u64, "count", 100, 0, std.math.maxInt(i64));
}
fn valueSize(config: cc.Config) cc.Error!usize {
    return config.int(usize, "value.size", 0, 0, std.math.maxInt(i32));
}
fn typed(config: cc.Config) cc.Error!bool {
    return config.boolean("typed", false);
}

// One problem per bad key.
pub fn validate(config: cc.Config, problems: *cc.Problems) void {
    problems.check("streams", streams(config));
    problems.check("count", count(config));
    problems.check("value.size", valueSize(config));
    problems.check("typed", typed(config));
    problems.check("topic", config.require("topic"));
}

/// `k = min(streams, max_tasks)` configs; config i owns the streams j with
/// j % k == i. `extra` is set in every config too.
fn splitStreams(config: cc.Config, n: u32, max_tasks: u32, extra: []const [2][]const u8, out: *cc.ConfigList) cc.Error!void {
    const k = @max(@min(n, max_tasks), 1);
    var mine: std.ArrayList(u8) = .empty;
    defer mine.deinit(cc.allocator);
    for (0..k) |i| {
        mine.clearRetainingCapacity();
        var j: u32 = @intCast(i);
        while (j < n) : (j += k) {
            if (mine.items.len > 0) try mine.append(cc.allocator, ',');
            try mine.print(cc.allocator, "{d}", .{j});
        }
        var overrides: [4][2][]const u8 = undefined;
        overrides[0] = .{ assigned_key, mine.items };
        for (extra, 1..) |e, x| overrides[x] = e;
        try out.add(config, overrides[0 .. 1 + extra.len]);
    }
}

pub fn taskConfigs(config: cc.Config, max_tasks: u32, out: *cc.ConfigList) cc.Error!void {
    try splitStreams(config, try streams(config), max_tasks, &.{}, out);
}

/// One stream: its partition (compact JSON) and the next sequence number.
const Stream = struct {
    name: []u8, // "stream-<j>"
    partition: []u8, // {"stream":"stream-<j>"}
    next: u64,
    /// The last sequence number in the batch being built, if any.
    last: ?u64 = null,
};

pub const Task = struct {
    streams: []Stream,
    count: u64,
    typed: bool,
    value_size: usize,
    /// The stream the next record comes from.
    cursor: usize = 0,

    pub fn start(config: cc.Config) cc.Error!Task {
        _ = try config.require("topic");
        const n_count = try count(config);
        const is_typed = try typed(config);
        const size = try valueSize(config);
        var indices: std.ArrayList(u32) = .empty;
        defer indices.deinit(cc.allocator);
        if (config.get(assigned_key) != null) {
            var it = config.list(assigned_key);
            while (it.next()) |item| {
                const j = std.fmt.parseInt(u32, item, 10) catch return cc.configError("config '{s}': '{s}' is not a stream index", .{ assigned_key, item });
                try indices.append(cc.allocator, j);
            }
        } else {
            for (0..try streams(config)) |j| try indices.append(cc.allocator, @intCast(j));
        }

        const list = try cc.allocator.alloc(Stream, indices.items.len);
        const partitions = try cc.allocator.alloc([]const u8, indices.items.len);
        defer cc.allocator.free(partitions);
        for (indices.items, list, partitions) |j, *s, *p| {
            const name = try std.fmt.allocPrint(cc.allocator, "stream-{d}", .{j});
            s.* = .{ .name = name, .partition = try std.fmt.allocPrint(cc.allocator, "{{\"stream\":\"{s}\"}}", .{name}), .next = 0 };
            p.* = s.partition;
        }

        // Resume after the committed offsets: {"seq":n} -> n + 1.
        var committed = try cc.offsets.read(partitions);
        defer committed.deinit();
        for (list) |*s| {
            const offset = committed.get(s.partition) orelse continue;
            const seq = seqOf(offset) orelse return cc.fatal("{s}: committed offset {s} has no integer \"seq\"", .{ s.name, offset });
            s.next = seq + 1;
        }
        return .{ .streams = list, .count = n_count, .typed = is_typed, .value_size = size };
    }

    /// The integer `seq` of an offset {"seq":n}.
    fn seqOf(offset: []const u8) ?u64 {
        const parsed = std.json.parseFromSlice(std.json.Value, cc.allocator, offset, .{}) catch return null;
        defer parsed.deinit();
        if (parsed.value != .object) return null;
        const seq = parsed.value.object.get("seq") orelse return null;
        return if (seq == .integer and seq.integer >= 0) @intCast(seq.integer) else null;
    }

    pub fn poll(self: *Task, max_records: u32, batch: *cc.SourceBatch) cc.Error!void {
        // Round-robin over the streams that have not reached `count`.
        var idle: usize = 0; // streams in a row with nothing left
        var n: u32 = 0;
        while (n < max_records and idle < self.streams.len) {
            const s = &self.streams[self.cursor];
            self.cursor = (self.cursor + 1) % self.streams.len;
            if (self.count > 0 and s.next >= self.count) {
                idle += 1;
                continue;
            }
            idle = 0;
            const seq = s.next;
            s.next += 1;
            s.last = seq;
            n += 1;

            const r = try batch.begin(.{});
            if (self.typed) {
                var buf: [64]u8 = undefined;
                const key = std.fmt.bufPrint(&buf, "{s}:{d}", .{ s.name, seq }) catch unreachable;
                try r.keyOf(@as([]const u8, key));
                var note_buf: [24]u8 = undefined;
                const note = std.fmt.bufPrint(&note_buf, "n{d}", .{seq}) catch unreachable;
                try r.valueOf(Count{
                    .stream = s.name,
                    .seq = @intCast(seq),
                    .even = seq % 2 == 0,
                    .note = if (seq % 2 == 0) note else null,
                });
            } else {
                // Straight into the batch's buffer: no formatting, no copy.
                const key = try r.key();
                try key.append(s.name);
                try key.byte(':');
                try key.int(seq);
                const value = try r.value();
                try value.int(seq);
                try value.padTo(self.value_size, '.');
            }
            try r.end();
        }
        // The positions of a batch: the last offset of each stream in it.
        for (self.streams) |*s| {
            const last = s.last orelse continue;
            s.last = null;
            var buf: [40]u8 = undefined;
            try batch.advance(s.partition, std.fmt.bufPrint(&buf, "{{\"seq\":{d}}}", .{last}) catch unreachable);
        }
    }

    pub fn stop(self: *Task) void {
        for (self.streams) |s| {
            cc.allocator.free(s.name);
            cc.allocator.free(s.partition);
        }
        cc.allocator.free(self.streams);
    }
};

/// The running connector (copycat:dynamic): with `streams.file` set, it
/// watches the file for the number of streams.
pub const Instance = struct {
    config: cc.OwnedConfig,
    file: ?[:0]u8,
    streams: u32,

    pub fn start(config: cc.Config) cc.Error!Instance {
        var owned = try config.clone(cc.allocator);
        errdefer owned.deinit();
        const path = std.mem.trim(u8, config.get("streams.file") orelse "", " \t\r\n");
        if (path.len == 0) return .{ .config = owned, .file = null, .streams = try streams(config) };
        const file = try cc.allocator.dupeSentinel(u8, path, 0);
        errdefer cc.allocator.free(file);
        const n = readStreams(file) catch |e|
            return cc.configError("config 'streams.file': cannot read the number of streams from {s}: {s}", .{ file, @errorName(e) });
        return .{ .config = owned, .file = file, .streams = n };
    }

    /// Nothing to watch without a file: the host asks taskConfigs once.
    pub fn watches(self: *const Instance) bool {
        return self.file != null;
    }

    pub fn taskConfigs(self: *Instance, max_tasks: u32, out: *cc.ConfigList) cc.Error!void {
        var buf: [16]u8 = undefined;
        const n = std.fmt.bufPrint(&buf, "{d}", .{self.streams}) catch unreachable;
        try splitStreams(self.config.config(), self.streams, max_tasks, &.{.{ "streams", n }}, out);
    }

    pub fn monitor(self: *Instance) cc.Error!void {
        const file = self.file orelse return;
        const n = readStreams(file) catch |e|
            return cc.retriable("cannot read the number of streams from {s}: {s}", .{ file, @errorName(e) });
        if (n != self.streams) {
            cc.log(.info, "{s}: {d} streams (was {d}): reconfiguring the tasks", .{ file, n, self.streams });
            self.streams = n;
            cc.requestTaskReconfiguration();
        }
    }

    pub fn stop(self: *Instance) void {
        if (self.file) |f| cc.allocator.free(f);
        self.config.deinit();
    }

    /// The file's decimal integer >= 1, surrounding whitespace ignored.
    fn readStreams(path: [:0]const u8) error{ Unreadable, NotANumber }!u32 {
        const fd = std.c.open(path, .{ .read = true });
        if (fd < 0) return error.Unreadable;
        defer _ = std.c.close(fd);
        var buf: [64]u8 = undefined;
        const got = std.c.read(fd, &buf, buf.len);
        if (got < 0) return error.Unreadable;
        const text = std.mem.trim(u8, buf[0..@intCast(got)], " \t\r\n");
        const n = std.fmt.parseInt(u32, text, 10) catch return error.NotANumber;
        return if (n >= 1 and n <= std.math.maxInt(i32)) n else error.NotANumber;
    }
};

comptime {
    cc.exportSource(@This());
}
