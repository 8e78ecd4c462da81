_TARGET = None
_DRAFT = None


def install(target_pool, draft_pool):
    global _TARGET, _DRAFT
    _TARGET, _DRAFT = target_pool, draft_pool


def pool_for(forward_mode):
    if forward_mode.is_draft_extend() or forward_mode.is_idle():
        return _DRAFT
    return _TARGET
