"""RingBuffer (gui/runs/ring_buffer.py): the rows up to a time, found without copying the buffer,
equal those of the full view, before and after the buffer wraps (exact)."""
import numpy as np
import pytest

from eomlab.gui.runs.ring_buffer import RingBuffer


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


def test_appends_of_any_size_keep_the_latest_rows_in_order_and_the_view_is_never_a_copy():
    """Against a plain list of every row appended: the kept rows are the last `capacity` of them
    after each append of 1 to 25 rows (the room after the rows runs out many times), exact."""
    rng = np.random.default_rng(7)
    buffer, every = RingBuffer(3, capacity=40), []
    for _ in range(300):
        k = int(rng.integers(1, 26))
        rows = np.column_stack((len(every) + np.arange(k), rng.normal(size=(k, 2))))
        every.extend(rows)
        buffer.append(rows)
        view = buffer.view()
        assert np.array_equal(view, np.array(every[-40:]))
        assert np.shares_memory(view, buffer._data)  # a slice: the plots read it every frame
        assert buffer.total_appended == len(every)
        assert np.array_equal(buffer.last(), every[-1])
    buffer.append(np.arange(150.0).reshape(50, 3))  # more than it holds at once
    assert np.array_equal(buffer.view(), np.arange(150.0).reshape(50, 3)[-40:])


def test_dropping_the_rows_from_a_time_then_appending():
    buffer = RingBuffer(2, capacity=10)
    for k in range(25):
        buffer.append([[float(k), k]])
    buffer.drop_from(20.0)
    assert list(buffer.view()[:, 0]) == [15.0, 16.0, 17.0, 18.0, 19.0]
    assert buffer.total_appended == 20
    for k in range(20, 32):
        buffer.append([[float(k), k]])
    assert list(buffer.view()[:, 0]) == [float(k) for k in range(22, 32)]


def test_the_tail_of_some_columns_is_a_copy_of_those_columns():
    buffer = RingBuffer(4, capacity=10)
    for k in range(15):
        buffer.append([[float(k), k, -k, 2 * k]])
    tail = buffer.tail_until(12.5, 3, [0, 3])
    assert np.array_equal(tail, [[10.0, 20.0], [11.0, 22.0], [12.0, 24.0]])
    tail[:] = 0
    assert buffer.view()[-3, 3] == 24.0  # the buffer is untouched
