//! uppercase-transform: upper-cases string values (and raw or `bytes`
//! values, ASCII a-z), or the named string fields of a struct or map value
//! (`fields`, every string field when empty). Every record comes out once,
//! in order, with its topic, partition, timestamp, key and headers as they
//! were; the schema never changes. Behaviour: examples/SPEC.md.

const std = @import("std");
const cc = @import("copycat");

pub const info: cc.Info = .{
    .name = "uppercase-transform",
    .version = "0.1.0",
    .description = "Upper-cases string values, or the named string fields of a struct or map value",
    .config_def = &.{
        .{ .name = "fields", .type = .list, .default = "", .doc = "The struct fields or map keys to upper-case; empty: every string field" },
    },
};

/// One problem per empty name in `fields` (e.g. `fields=a,,b`).
pub fn validate(config: cc.Config, problems: *cc.Problems) void {
    var it = config.listAll("fields");
    var i: usize = 0;
    while (it.next()) |name| : (i += 1) {
        if (name.len == 0) problems.add("fields", "config 'fields': name {d} of the list is empty", .{i + 1});
    }
}

pub const Transform = struct {
    /// The names to upper-case; empty: every string field.
    fields: [][]u8,
    arena: std.heap.ArenaAllocator,

    pub fn configure(config: cc.Config) cc.Error!Transform {
        var names: std.ArrayList([]u8) = .empty;
        errdefer names.deinit(cc.allocator);
        var it = config.listAll("fields");
        var i: usize = 0;
        while (it.next()) |name| : (i += 1) {
            if (name.len == 0) return cc.configError("config 'fields': name {d} of the list is empty", .{i + 1});
            try names.append(cc.allocator, try cc.allocator.dupe(u8, name));
        }
        return .{ .fields = try names.toOwnedSlice(cc.allocator), .arena = .init(cc.allocator) };
    }

    pub fn deinit(self: *Transform) void {
        for (self.fields) |f| cc.allocator.free(f);
        cc.allocator.free(self.fields);
        self.arena.deinit();
    }

    fn named(self: *const Transform, name: []const u8) bool {
        if (self.fields.len == 0) return true;
        for (self.fields) |f| if (std.mem.eql(u8, f, name)) return true;
        return false;
    }

    fn upper(self: *Transform, s: []const u8) error{OutOfMemory}![]const u8 {
        const out = try self.arena.allocator().alloc(u8, s.len);
        for (out, s) |*o, ch| o.* = std.ascii.toUpper(ch);
        return out;
    }

    /// Upper-case `v` in place (its strings replaced); whether it changed.
    fn change(self: *Transform, v: *cc.Value, schema: ?cc.SchemaRef) error{OutOfMemory}!bool {
        switch (v.*) {
            .string => |s| v.* = .{ .string = try self.upper(s) },
            .bytes => |b| v.* = .{ .bytes = try self.upper(b) },
            .@"struct" => |fields| {
                const s = schema orelse return false;
                var changed = false;
                for (fields, 0..) |*f, i| if (f.* == .string and self.named(s.fieldName(i))) {
                    f.* = .{ .string = try self.upper(f.string) };
                    changed = true;
                };
                return changed;
            },
            .map => |entries| {
                var changed = false;
                for (entries) |*e| if (e.key == .string and e.value == .string and self.named(e.key.string)) {
                    e.value = .{ .string = try self.upper(e.value.string) };
                    changed = true;
                };
                return changed;
            },
            else => return false,
        }
        return true;
    }

    pub fn apply(self: *Transform, in: *const cc.TransformInput, out: *cc.TransformOutput) cc.Error!void {
        defer _ = self.arena.reset(.retain_capacity);
        for (0..in.len()) |i| {
            const rec = in.record(i);
            const r = try out.begin(i); // topic, partition, offset, timestamp as they were
            try r.keyFrom(rec.key);
            if (rec.value.raw()) |bytes| {
                const v = try r.value();
                try v.append(bytes);
                for (v.written()) |*ch| ch.* = std.ascii.toUpper(ch.*);
            } else {
                var v = try rec.value.decode(self.arena.allocator());
                if (try self.change(&v, rec.value.schema())) {
                    // The same schema, the changed value.
                    const w = if (rec.value.schema()) |s| try r.valueUnder(s) else try r.valueSchemaless();
                    try w.value(v);
                } else try r.valueFrom(rec.value);
            }
            for (0..rec.headerCount()) |h| {
                const header = rec.header(h);
                try r.headerFrom(header.key, header.value);
            }
            try r.end();
        }
    }
};

comptime {
    cc.exportTransform(@This());
}
