"""Which assignments of a name reach a use (`reaching`, `binding`), in statement order, through
tuple unpacking, for loops, comprehensions, walruses and imports."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst.metadata import Assignment, ComprehensionScope, ImportAssignment

from castlint.analysis.origin import Origin
from castlint.analysis.tree import iter_nodes

_BLOCKS = (cst.IndentedBlock, cst.Module, cst.SimpleStatementLine, cst.SimpleStatementSuite)


class ReachingAssignments:
    def reaching(self, name: cst.Name) -> List[Assignment]:
        """The assignments of `name` that can reach this use.

        Within one scope this follows the statements in order: a plain assignment
        earlier in the same block (or in every branch of an if/else before it) hides
        the ones before it; a loop body's own later assignments reach back to its
        start; try/except, with and for targets are followed. Where branches merge,
        every branch's assignment reaches (the caller takes the worst). A name from
        an enclosing scope (a closure) falls back to the assignments above the use."""
        scope = self.scopes.get(name)
        if scope is None:
            return []
        referents = set()
        for access in scope.accesses[name.value]:
            if access.node is name:
                referents.update(access.referents)
        if not referents:
            referents = set(scope.assignments[name.value])
        candidates = [r for r in referents if isinstance(r, Assignment) and not self._is_augmented(r)]
        leaked = self._leaked_walrus().get((id(scope), name.value))
        if leaked:  # `[(last := f(i)) for i in ids]`: last is bound in this scope (PEP 572)
            candidates += [c for c in leaked if c not in candidates]
        if not candidates:
            bound = self._case_binding(name)
            if bound is not None:  # a name a `case` pattern binds, read in that case's body
                return [Assignment(name.value, scope, bound, 0)]
            # ... or read after the `match` statement: what any case that binds it gave
            return [Assignment(name.value, scope, b, 0) for b in self._matched_before(name)]
        if candidates and all(c.scope is scope for c in candidates):
            # libcst's referents stop at the use; a loop's later assignments reach it too
            candidates = [
                r for r in scope.assignments[name.value] if isinstance(r, Assignment) and not self._is_augmented(r)
            ]
        if self.own_lines is not None and len(candidates) > 1:
            candidates = self._linked_for_imports(candidates)
        if len(candidates) <= 1:
            return candidates
        if all(c.scope is scope for c in candidates):
            found = self._flow_reaching(name, candidates, getattr(scope, "node", self.module))
            if found:
                return found
            return candidates  # e.g. read before any assignment
        use_line = self.positions[name].start.line
        before = [c for c in candidates if self._defined_at(c) <= use_line and c.node is not name]
        return before or candidates

    def _matched_before(self, name: cst.Name) -> List[cst.Name]:
        """The Names the case patterns of a `match` statement of name's own function (not a nested def)
        bind for name, where that statement ends before the use: `match kv: case (k, v): pass` then
        `k.to(d)` reads what a case bound (libcst's scopes do not record pattern bindings)."""
        if not self.nodes.match_statements:
            return []
        function = self.enclosing_function(name)
        use_line = self.positions[name].start.line
        out = []
        for match in self.nodes.match_statements:
            if self.enclosing_function(match) is not function or self.positions[match].end.line >= use_line:
                continue
            for case in match.cases:
                for inner in iter_nodes(case.pattern, (cst.MatchAs, cst.MatchStar, cst.MatchMapping)):
                    bound = inner.rest if isinstance(inner, cst.MatchMapping) else inner.name
                    if isinstance(bound, cst.Name) and bound.value == name.value:
                        out.append(bound)
        return out

    def _leaked_walrus(self) -> Dict[Tuple[int, str], List[Assignment]]:
        """(id(scope), name) -> the `:=` targets of that name inside comprehensions whose nearest
        enclosing scope that is no comprehension is scope: Python binds them there (PEP 572), libcst
        records them in the comprehension's own scope."""
        index = self.__dict__.get("_walrus_index")
        if index is None:
            index = self._walrus_index = {}
            for node in self.nodes.walrus_targets:
                inner = self.scopes.get(node)
                outer = inner
                while outer is not None and isinstance(outer, ComprehensionScope):
                    outer = outer.parent
                if outer is None or outer is inner:
                    continue
                for assignment in inner.assignments[node.value]:
                    if isinstance(assignment, Assignment) and assignment.node is node:
                        index.setdefault((id(outer), node.value), []).append(assignment)
        return index

    def _linked(self, assignment: Assignment) -> bool:
        # (the line in the linked module: a pruned copy's lines are mapped back first)
        return self.own_lines is not None and self.position(assignment.node).start.line > self.own_lines

    def _defined_at(self, assignment: Assignment) -> int:
        """The line an assignment takes effect: a linked definition where it is imported (first)."""
        return 0 if self._linked(assignment) else self.positions[assignment.node].start.line

    def _linked_for_imports(self, candidates: List[Assignment]) -> List[Assignment]:
        """A linked definition replaces the import that names it."""
        linked = {c.name for c in candidates if self._linked(c)}
        if not linked:
            return candidates
        return [c for c in candidates if not (isinstance(c, ImportAssignment) and c.name in linked)]

    def _is_augmented(self, assignment: Assignment) -> bool:
        return isinstance(self.parents.get(assignment.node), cst.AugAssign)

    def _ids_above(self, node: cst.CSTNode) -> frozenset:
        key = id(node)
        found = self._anc_ids.get(key)
        if found is None:
            found = frozenset([key] + [id(a) for a in self.ancestors(node)])
            self._anc_ids[key] = found
        return found

    def _flow_reaching(self, use: cst.Name, candidates: List[Assignment], scope_node) -> List[Assignment]:
        remaining = list(candidates)
        found: List[Assignment] = []
        direct = set()  # ids of the statements that bind the name outright
        for c in candidates:
            statement = self._binding_statement(c.node)
            if statement is not None:
                direct.add(id(statement))

        def take(container) -> List[Assignment]:
            inside = [c for c in remaining if id(container) in self._ids_above(c.node)]
            for c in inside:
                remaining.remove(c)
            found.extend(inside)
            return inside

        child = use
        for anc in self.ancestors(use):
            if isinstance(anc, cst.For) and child is anc.body:
                if take(anc.target):
                    return found  # assigned at the top of every iteration
                take(anc.body)  # assigned later in the body: reaches the next iteration
            elif isinstance(anc, cst.For) and child is anc.orelse:
                take(anc.target)
                take(anc.body)
            elif isinstance(anc, cst.While) and (child is anc.body or child is anc.test):
                take(anc.body)
            elif isinstance(anc, cst.With) and child is anc.body:
                if any(take(item) for item in anc.items):
                    return found
            elif isinstance(anc, cst.ExceptHandler) and child is anc.body and anc.name is not None:
                if take(anc.name):
                    return found
            elif isinstance(anc, cst.Try) and child is not anc.body:
                take(anc.body)  # an exception (or the else) after some of the body ran
                if child is anc.finalbody:
                    for handler in anc.handlers:
                        take(handler)
                    if anc.orelse is not None:
                        take(anc.orelse)
            if isinstance(anc, _BLOCKS):
                body = list(anc.body)
                index = next((i for i, s in enumerate(body) if s is child), None)
                if index is not None:
                    for statement in reversed(body[:index]):
                        if take(statement) and self._definitely_binds(statement, direct):
                            return found
            if anc is scope_node:  # the parameters are bound on entry
                found.extend(
                    c
                    for c in remaining
                    if isinstance(c.node, cst.Param) or isinstance(self.parents.get(c.node), cst.Param)
                )
                return found
            child = anc
        return found

    def _binding_statement(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The Assign/AnnAssign/import/def statement that binds node outright, if any."""
        if isinstance(node, (cst.Import, cst.ImportFrom, cst.FunctionDef, cst.ClassDef)):
            return node
        current = node
        parent = self.parents.get(current)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List, cst.AssignTarget)):
            current, parent = parent, self.parents.get(parent)
        if isinstance(parent, cst.Assign) or (isinstance(parent, cst.AnnAssign) and parent.value is not None):
            return parent
        return None

    def _definitely_binds(self, statement: cst.CSTNode, direct: set) -> bool:
        if id(statement) in direct:
            return True
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
            return any(self._definitely_binds(s, direct) for s in statement.body)
        if isinstance(statement, cst.If):
            return (
                statement.orelse is not None
                and self._definitely_binds(statement.body, direct)
                and self._definitely_binds(statement.orelse, direct)
            )
        if isinstance(statement, (cst.Else, cst.With)):
            return self._definitely_binds(statement.body, direct)
        if isinstance(statement, cst.Try):
            return self._definitely_binds(statement.body, direct) and all(
                self._definitely_binds(h.body, direct) for h in statement.handlers
            )
        return False

    def _name_origin(self, name: cst.Name, depth: int) -> Origin:
        best = Origin.OTHER
        for assignment in self.reaching(name):
            best = max(best, self._narrowed_origin(name, assignment, depth))
            if best == Origin.POOL:
                break
        return best

    def _narrowed_origin(self, name: cst.Name, assignment, depth: int) -> Origin:
        """_assignment_origin, where a for target over `d.items()` read under a test of the key is
        only the entries of d that pass it (key_excluded)."""
        node = assignment.node
        kind, iterable, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, ())
        if kind == "assign" and not path:  # `value = super().__getattribute__(name)` under `if name == "x":`
            guarded = self.hook_guarded_origin(name, iterable, depth)
            if guarded is not None:
                return guarded
            kept = self.field_walk_kept(name, iterable)
            if kept is not None:  # `t = getattr(rec, f.name)` read under `if f.name == "kv_scale":`
                return max((self.origin(a, depth) for a in kept), default=Origin.OTHER)
        named = self.record_walk_named(name, iterable, path) if kind == "for" else None
        if named is not None:  # `for n, v in vars(rec).items()` read under `if n == "kv_cache":`: rec.kv_cache
            return max((self.origin(a, depth) for a in named), default=Origin.OTHER)
        excluded = self.key_excluded(name, iterable, path) if kind == "for" else frozenset()
        if not excluded:
            return self._assignment_origin(assignment, depth)
        values = self.element_values(iterable.func.value, None, depth + 1)
        if values is None:
            return self._assignment_origin(assignment, depth)
        kept = [v for v in values if id(v) not in excluded]
        return max((self.origin(v, depth) for v in kept), default=Origin.OTHER)

    def binding(self, target: cst.CSTNode):
        """How a Name is bound: ('assign', value, path) for `=`, annotated `=` and `:=`;
        ('for', iterable, path) for a for or comprehension target; (None, None, ())
        otherwise. path: the tuple-unpacking indices, outermost first (None: starred)."""
        path: List[Optional[int]] = []
        node = target
        parent = self.parents.get(node)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            if isinstance(parent, (cst.Element, cst.StarredElement)):
                container = self.parents.get(parent)
                if isinstance(container, (cst.Tuple, cst.List)):
                    elements = list(container.elements)
                    index = next(i for i, e in enumerate(elements) if e is parent)
                    starred = any(isinstance(e, cst.StarredElement) for e in elements[: index + 1])
                    path.insert(0, None if starred else index)
                node = container
            else:
                node = parent
            parent = self.parents.get(node)
        if isinstance(parent, cst.AssignTarget):
            assign = self.parents.get(parent)
            if isinstance(assign, cst.Assign):
                return "assign", assign.value, tuple(path)
        if isinstance(parent, cst.AnnAssign) and parent.target is node and parent.value is not None:
            return "assign", parent.value, tuple(path)
        if isinstance(parent, cst.NamedExpr) and parent.target is node:
            return "assign", parent.value, tuple(path)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node:
            return "for", parent.iter, tuple(path)
        if isinstance(parent, cst.AsName) and isinstance(self.parents.get(parent), cst.WithItem):
            entered = self.entered_value(self.parents.get(parent).item)  # `with cm as x`: what entering cm gives
            if entered is not None:
                return "assign", entered, tuple(path)
        if isinstance(parent, (cst.MatchAs, cst.MatchStar, cst.MatchMapping)):
            matched = self._matched_value(node)
            if matched is not None:
                return "assign", matched, ()
        return None, None, ()
