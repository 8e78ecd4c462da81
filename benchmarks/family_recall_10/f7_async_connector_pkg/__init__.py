"""vLLM connector (connector.py) staging through coroutines defined in aio.py."""
