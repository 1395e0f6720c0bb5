//! counter-source: counts upwards on `streams` source partitions
//! (stream-0 ... stream-<n-1>), `count` records each (0 = unbounded), and
//! resumes every stream after its last committed offset.
//! Behaviour: examples/SPEC.md.

const std = @import("std");
const cc = @import("copycat");

/// The task-config key listing the streams assigned to a task.
const assigned_key = "counter.streams.assigned";

pub const info: cc.Info = .{
    .name = "counter-source",
    .version = "0.1.0",
    .description = "Counts upwards on N streams into a Kafka topic",
    .config_def = &.{
        .{ .name = "topic", .type = .string, .required = true, .doc = "Kafka topic to write to" },
        .{ .name = "streams", .type = .int, .default = "1", .doc = "Number of streams (source partitions stream-0 ... stream-<n-1>)" },
        .{ .name = "count", .type = .long, .default = "100", .doc = "Records per stream; 0 = unbounded" },
    },
};

fn streams(config: cc.Config) cc.Error!u32 {
    return @intCast(try config.int(i32, "streams", 1, 1, std.math.maxInt(i32)));
}

fn count(config: cc.Config) cc.Error!i64 {
    return config.int(i64, "count", 100, 0, std.math.maxInt(i64));
}

pub fn validate(config: cc.Config, problems: *cc.Problems) void {
    problems.check("streams", streams(config));
    problems.check("count", count(config));
    problems.check("topic", config.require("topic"));
}

/// k = min(streams, max_tasks) configs; task i gets the streams j with
/// j % k == i.
pub fn taskConfigs(config: cc.Config, max_tasks: u32, out: *cc.ConfigList) cc.Error!void {
    const n = try streams(config);
    _ = try count(config);
    _ = try config.require("topic");
    const k = @min(n, max_tasks);
    var assigned: std.ArrayList(u8) = .empty;
    defer assigned.deinit(cc.allocator);
    for (0..k) |i| {
        assigned.clearRetainingCapacity();
        var j = i;
        while (j < n) : (j += k) {
            if (j != i) try assigned.append(cc.allocator, ',');
            try assigned.print(cc.allocator, "{d}", .{j});
        }
        try out.add(config, &.{.{ assigned_key, assigned.items }});
    }
}

const Stream = struct {
    index: u32, // j of stream-<j>
    next: i64, // the next sequence number
};

pub const Task = struct {
    count: i64, // records per stream, 0 = unbounded
    streams: []Stream,
    cursor: usize = 0, // round-robin position

    pub fn start(config: cc.Config) cc.Error!Task {
        const n = try streams(config);
        const per_stream = try count(config);
        const topic = try config.require("topic");

        var indices: std.ArrayList(u32) = .empty;
        defer indices.deinit(cc.allocator);
        if (config.get(assigned_key) != null) {
            var items = config.list(assigned_key);
            while (items.next()) |item| {
                const j = std.fmt.parseInt(u32, item, 10) catch n;
                if (j >= n) return cc.configError("config '{s}': invalid stream '{s}': expected 0 to {d}", .{ assigned_key, item, n - 1 });
                try indices.append(cc.allocator, j);
            }
        } else {
            for (0..n) |j| try indices.append(cc.allocator, @intCast(j));
        }

        const own = try cc.allocator.alloc(Stream, indices.items.len);
        errdefer cc.allocator.free(own);
        const names = try cc.allocator.alloc([]const u8, own.len);
        defer {
            for (names) |name| cc.allocator.free(name);
            cc.allocator.free(names);
        }
        for (indices.items, names, own) |j, *name, *s| {
            name.* = try std.fmt.allocPrint(cc.allocator, "stream-{d}", .{j});
            s.* = .{ .index = j, .next = 0 };
        }

        // Resume after the committed offsets.
        var committed = try cc.offsets.read(names);
        defer committed.deinit();
        for (names, own) |name, *s| {
            const last = committed.get(name) orelse continue;
            const seq = std.fmt.parseInt(i64, last, 10) catch
                return cc.fatal("{s}: committed offset '{s}' is not a sequence number", .{ name, last });
            s.next = seq + 1;
        }
        cc.log(.info, "counting {d} stream(s) into {s}, {d} record(s) each", .{ own.len, topic, per_stream });
        return .{ .count = per_stream, .streams = own };
    }

    fn done(self: *const Task, s: Stream) bool {
        return self.count > 0 and s.next >= self.count;
    }

    pub fn poll(self: *Task, max_records: u32, batch: *cc.Batch) cc.Error!void {
        var emitted: u32 = 0;
        var idle: usize = 0; // streams visited in a row without a record
        while (emitted < max_records and idle < self.streams.len) {
            const s = &self.streams[self.cursor];
            self.cursor = (self.cursor + 1) % self.streams.len;
            if (self.done(s.*)) {
                idle += 1;
                continue;
            }
            idle = 0;
            const seq = s.next;
            s.next += 1;
            var pbuf: [24]u8 = undefined;
            var obuf: [24]u8 = undefined;
            var kbuf: [48]u8 = undefined;
            const partition = std.fmt.bufPrint(&pbuf, "stream-{d}", .{s.index}) catch unreachable;
            const offset = std.fmt.bufPrint(&obuf, "{d}", .{seq}) catch unreachable;
            const key = std.fmt.bufPrint(&kbuf, "{s}:{s}", .{ partition, offset }) catch unreachable;
            try batch.add(.{ .source_partition = partition, .source_offset = offset, .key = key, .value = offset });
            emitted += 1;
        }
    }

    pub fn stop(self: *Task) void {
        cc.allocator.free(self.streams);
    }
};

comptime {
    cc.exportSource(@This());
}
