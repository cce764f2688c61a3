"""RingBuffer (gui/ring_buffer.py): the rows up to a time, found without copying the buffer,
equal those of the full view, before and after the buffer wraps (exact)."""
import numpy as np
import pytest

from eomlab.gui.ring_buffer import RingBuffer


@pytest.mark.parametrize("appended", [0, 5, 10, 17, 23])
def test_the_rows_until_a_time_are_those_of_the_whole_view(appended):
    buffer = RingBuffer(2, capacity=10)
    for k in range(appended):
        buffer.append([[0.1 * k, k]])
    times = buffer.view()[:, 0]
    for t in [-1.0, *times, *(times + 0.05), 99.0]:
        expected = times[times <= t]
        assert buffer.count_until(t) == len(expected)
        for n in (1, 3, 20):
            tail = buffer.tail_until(t, n)
            assert np.array_equal(tail, buffer.view()[:len(expected)][-n:] if len(expected) else np.zeros((0, 2)))
