"""TapeLayout: the tape of a reverse sweep, slot by slot.

A value that the reverse sweep needs and a later assignment overwrites is saved on a
`Stack`: a typed array for scalars (reserved at loop entry, `reserves`), a list for arrays
and callee tapes. `push` and `pop` write the statements that save and restore a value;
`tape_layout` lists the slots that the forward sweep returns.
"""

import gast

from codegen.templates import statements
from srcad.passes import ir


def _stmts(text):
    return statements(text)


class Stack:
    """A tape slot saving a variable's successive values: an array for scalars, a list
    for arrays and callee tapes."""

    def __init__(self, buf, top, kind, is_list):
        self.buf, self.top, self.kind, self.is_list = buf, top, kind, is_list
        self.checked = False  # grown at each push (pushed at several loop levels)


class TapeLayout:
    """Part of `ReverseAD` (a mixin): see the module."""

    def stack(self, var, kind, key=None):
        key = key or var
        if key not in self.stacks:
            stem = "saved_" + var if key != var else "tape_" + var
            buf = self.namer.fresh(stem, numbered=False)
            top = self.namer.fresh("top_" + buf[5:] if buf.startswith("tape_") else "top_" + buf,
                                   numbered=False)
            is_list = kind is None or getattr(kind, "ndim", 1) > 0 or not hasattr(kind, "dtype")
            self.stacks[key] = Stack(buf, top, kind, is_list)
            self.stacks[key].checked = key in getattr(self, "mixed", ())
        return self.stacks[key]

    def push(self, st, value):
        if st.is_list:
            return _stmts(f"{st.buf}.append({value})")
        grow = f"{st.buf} = rt.reserve({st.buf}, {st.top} + 1)\n" if st.checked else ""
        return _stmts(f"{grow}{st.buf}[{st.top}] = {value}\n{st.top} += 1")

    def pop(self, st, target, copy_array=False):
        suffix = ".copy()" if copy_array else ""
        return _stmts(f"{st.top} -= 1\n{target} = {st.buf}[{st.top}]{suffix}")

    def value_push(self, s):
        if s in self.replay_of:  # the reverse sweep replays the iteration instead
            return []
        return [t for t in self.targets(s) if t in self.ctx.pushed
                and s not in self.ctx.fresh_defs]

    @staticmethod
    def targets(s):
        t = s.targets[0]
        if isinstance(t, gast.Tuple):
            return [e.id for e in t.elts]
        return [t.id] if isinstance(t, gast.Name) else []

    def elem_stack(self, s):
        x = s.targets[0].value.id
        kind = self.ctx.item_kinds[s]
        return self.stack(x, kind if kind.ndim else self.ctx.kinds[x].with_(ndim=0),
                          key=("item", s))

    def reserves(self, body, times, loop=None):
        counts = {}
        if loop in self.ctx.loop_var_changed and loop.target.id not in self.mixed:
            counts[loop.target.id] = 1
        for s in ir.walk_no_loops(body):
            if s in self.ctx.saved_loop_vars and s.target.id not in self.mixed:
                counts[s.target.id] = counts.get(s.target.id, 0) + 1
            if not isinstance(s, gast.Assign):
                continue
            keys = [t for t in self.value_push(s) if not self.ctx.kinds[t].ndim]
            target = s.targets[0]
            if isinstance(target, gast.Subscript) and target.value.id in self.ctx.elem_saved \
                    and not self.ctx.item_kinds[s].ndim:
                keys.append(("item", s))
            for key in keys:
                if key not in self.mixed:
                    counts[key] = counts.get(key, 0) + 1
        for v in self.ctx.replay.get(loop, ((),))[0]:
            if not self.ctx.kinds[v].ndim:
                counts[("replay", loop, v)] = 1
        out = []
        for key, n in counts.items():
            if key[0] == "replay" if isinstance(key, tuple) else False:
                st = self.replay_stack(key[1], key[2])
                out += _stmts(f"{st.buf} = rt.reserve({st.buf}, {st.top} + {times}{n})")
                continue
            st = self.stacks.get(key)
            if st is None:
                st = (self.stack(key, self.ctx.kinds[key]) if isinstance(key, str)
                      else self.elem_stack(key[1]))
            if st.is_list:  # a tuple's values: a list grows as it is appended to
                continue
            out += _stmts(f"{st.buf} = rt.reserve({st.buf}, {st.top} + {times}{n})")
        return out

    def replay_stack(self, loop, v):
        return self.stack(v, self.ctx.kinds[v], key=("replay", loop, v))

    def store_counts(self):
        if self._stores is None:
            self._stores = {}
            for n in ir.names(gast.Module(body=self.ctx.fnode.body, type_ignores=[])):
                if isinstance(n.ctx, gast.Store):
                    self._stores[n.id] = self._stores.get(n.id, 0) + 1
        return self._stores

    def tape_layout(self):
        slots = []
        for st in self.stacks.values():
            slots += [st.buf] if st.is_list else [st.buf, st.top]
        slots += self.final_values()
        slots += [t for s, t in self.tape_calls.items() if s not in self.callee_stacks]
        self.ctx.tape_slots = slots
        return slots

    def mixed_levels(self, body):
        """Scalar stacks pushed at more than one loop level. Reserving room at loop entry
        would let an inner loop use up room an outer one counted on, so these grow at each
        push instead."""
        owners = {}
        self._levels(body, None, owners)
        return {key for key, loops in owners.items() if len(loops) > 1}

    def _levels(self, stmts, loop, owners):
        """Record in `owners` the loops (`loop`, or those inside `stmts`) at which each
        stack of `stmts` is pushed."""
        for s in ir.walk_no_loops(stmts):
            keys = []
            if isinstance(s, gast.Assign):
                keys += self.value_push(s)
                t = s.targets[0]
                if isinstance(t, gast.Subscript) and t.value.id in self.ctx.elem_saved:
                    keys.append(("item", s))
            if s in self.ctx.saved_loop_vars:
                keys.append(s.target.id)
            if s in self.ctx.loop_var_changed:
                owners.setdefault(s.target.id, set()).add(s)
            for key in keys:
                owners.setdefault(key, set()).add(loop)
            if isinstance(s, (gast.For, gast.While)):
                self._levels(s.body, s, owners)

    def reserves_top(self, body):
        counts = {}
        for s in ir.walk_no_loops(body):
            if s in self.ctx.saved_loop_vars and s.target.id not in self.mixed:
                buf = self.stack(s.target.id, self.ctx.kinds[s.target.id]).buf
                counts[buf] = counts.get(buf, 0) + 1
            if isinstance(s, gast.Assign):
                for t in self.value_push(s):
                    if t in self.stacks:
                        counts[self.stacks[t].buf] = counts.get(self.stacks[t].buf, 0) + 1
                if ("item", s) in self.stacks:
                    buf = self.stacks[("item", s)].buf
                    counts[buf] = counts.get(buf, 0) + 1
        return counts
