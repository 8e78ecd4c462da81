"""ModuleAnalysis: one file's flow model. Its state and the words read from the tables are here;
its queries are the mixins of this package, tree navigation, conversion queries and object flow."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from castlint.analysis.conversions import ConversionQueries
from castlint.analysis.dataflow.attributes import SelfAttributes
from castlint.analysis.dataflow.casts import Casts
from castlint.analysis.dataflow.dtype_values import DtypeValues
from castlint.analysis.dataflow.index_values import IndexValues
from castlint.analysis.dataflow.names import ReachingAssignments
from castlint.analysis.dataflow.origins import Origins
from castlint.analysis.dataflow.parameters import Parameters
from castlint.analysis.dataflow.patterns import PatternMatching
from castlint.analysis.dataflow.returns import ReturnValues
from castlint.analysis.dataflow.subscripts import Subscripts
from castlint.analysis.object_flow import ObjectFlow
from castlint.analysis.origin import Origin
from castlint.analysis.tree import NodeIndex, TreeNavigation, resolve_scopes
from castlint.tables import Tables


class ModuleAnalysis(
    Origins,
    Subscripts,
    IndexValues,
    ReachingAssignments,
    PatternMatching,
    SelfAttributes,
    Parameters,
    ReturnValues,
    Casts,
    DtypeValues,
    TreeNavigation,
    ConversionQueries,
    ObjectFlow,
):
    def __init__(self, wrapper: cst.MetadataWrapper, tables: Tables, pruned=None, own_lines: Optional[int] = None):
        """pruned: a castlint.prune.Pruned when wrapper.module is a pruned copy of the
        file (positions are then mapped back to the file's lines); own_lines: the file's
        own lines when definitions of other files of the tree follow them
        (castlint.analysis.tree_index): those stand where the file imports them."""
        self.own_lines = own_lines
        self.wrapper = wrapper
        self.module = wrapper.module
        self.tables = tables
        self.scopes = resolve_scopes(wrapper)
        self._positions = None  # resolved on first use
        # One walk gives the parent map and the node index (ParentNodeProvider walks
        # the tree again through CSTNode.children, which costs as much as a parse).
        self.nodes = NodeIndex.build(self.module)
        self.parents = self.nodes.parents
        self._pruned = pruned
        if pruned is not None:
            self.nodes.names |= pruned.dropped_names
            self.nodes.attr_names |= pruned.dropped_attr_names
        self._origin_cache: Dict[int, Origin] = {}
        self.derived: Dict[str, object] = {}  # what a proof derives once per module (by its name)
        self._in_progress: set = set()
        self._self_attr_index: Dict[Tuple[int, str], List[cst.BaseExpression]] = {}
        self._method_calls: Dict[Tuple[int, str], List[cst.Call]] = {}
        self._indexed_classes: set = set()
        self._hot_cache: Dict[int, set] = {}
        self._pool_casts: Optional[List[Tuple[cst.Call, str]]] = None
        self._conversions: Optional[List[Tuple[cst.Call, str, str]]] = None
        self._call_conversions: Optional[List[Tuple[cst.Call, str, str]]] = None
        self._frames: List[tuple] = []  # (def or lambda, call) of the calls being followed
        self._bindings: List[Dict[int, Origin]] = []  # parameter origins of the calls being followed
        self._returns_cache: Dict[tuple, Origin] = {}
        self._returns_in_progress: set = set()
        self._callers: Optional[Dict[int, List[cst.Call]]] = None  # id(def or lambda) -> calls by name
        self._mapped: Optional[Dict[int, List[Tuple[cst.Call, int]]]] = None  # id(def) -> map() calls
        self._anc_ids: Dict[int, frozenset] = {}
        self._kind_cache: Dict[Tuple[str, int], str] = {}
        self._held_params: set = set()  # names of the parameters some binding hands a callable
        self._callerless: set = set()  # ids of the stand-in calls that pass nothing, defaults included

    # -- words from the tables ----------------------------------------------
    def _has_word(self, text: str, words: Sequence[str]) -> bool:
        low = text.lower()
        return any(word in low for word in words)
