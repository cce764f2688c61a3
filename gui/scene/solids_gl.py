"""One pyqtgraph.opengl item that draws every body's solid and its shadow.

The meshes of all bodies (`gui.scene.meshes`) go into one set of vertex buffers, uploaded once per
model. A frame only changes each body's 4×4 placement: painting binds the buffers once and, per
body, sets the transform and draws its slice of the buffer, then does the same for the shadows
with the ground-flattening matrix in front and a flat colour. (One GLMeshItem per body costs a
millisecond or more of Python and GL state per item and frame; a 20-link chain drew at 15 Hz.)
Imported only where OpenGL is available (see `gui.scene.scene3d.make_scene3d`).
"""
from __future__ import annotations

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl import GLGraphicsItem, shaders
from PySide6.QtGui import QMatrix4x4
from PySide6.QtOpenGL import QOpenGLBuffer

#: lit faces: ambient plus a key light from the upper left behind the camera and a soft light
#: from the camera (eye coordinates)
_LIT_VERTEX = """
uniform mat4 u_mvp;
uniform mat3 u_normal;
attribute vec4 a_position;
attribute vec3 a_normal;
attribute vec4 a_color;
varying vec4 v_color;
varying vec3 v_normal;
void main() {
    v_normal = normalize(u_normal * a_normal);
    v_color = a_color;
    gl_Position = u_mvp * a_position;
}
"""
_LIT_FRAGMENT = """
#ifdef GL_ES
precision mediump float;
#endif
varying vec4 v_color;
varying vec3 v_normal;
void main() {
    vec3 n = normalize(v_normal);
    float key = max(dot(n, normalize(vec3(-0.45, 0.65, 0.6))), 0.0);
    float fill = max(n.z, 0.0);
    gl_FragColor = vec4(v_color.rgb * (0.32 + 0.5 * key + 0.25 * fill), v_color.a);
}
"""
_FLAT_VERTEX = """
uniform mat4 u_mvp;
attribute vec4 a_position;
void main() {
    gl_Position = u_mvp * a_position;
}
"""
_FLAT_FRAGMENT = """
#ifdef GL_ES
precision mediump float;
#endif
uniform float u_colour[4];
void main() {
    gl_FragColor = vec4(u_colour[0], u_colour[1], u_colour[2], u_colour[3]);
}
"""


def _array(matrix: QMatrix4x4) -> np.ndarray:
    return np.array(matrix.data(), dtype=np.float32)


class SolidsItem(GLGraphicsItem.GLGraphicsItem):
    """`set_meshes` once per model, `set_poses` once per frame."""

    def __init__(self):
        super().__init__()
        self.setGLOptions("opaque")
        # one program pair per item: a compiled program belongs to one GL context
        self.lit = shaders.ShaderProgram(f"eomlab_lit_{id(self)}", [
            shaders.VertexShader(_LIT_VERTEX), shaders.FragmentShader(_LIT_FRAGMENT)])
        self.flat = shaders.ShaderProgram(f"eomlab_flat_{id(self)}", [
            shaders.VertexShader(_FLAT_VERTEX), shaders.FragmentShader(_FLAT_FRAGMENT)])
        self.slices: list[tuple[int, int]] = []  # per mesh: first vertex, vertex count
        self.placements: list[QMatrix4x4] = []
        self.flatten: QMatrix4x4 | None = None  # None: no shadows
        self.shadow_colour = (0.72, 0.73, 0.76, 1.0)
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._uploaded = True
        self.buffers = [QOpenGLBuffer(QOpenGLBuffer.Type.VertexBuffer) for _ in range(3)]

    def set_meshes(self, meshes: list) -> None:
        """The meshes, in the order `set_poses` will place them."""
        self.slices, first = [], 0
        for mesh in meshes:
            count = 3 * len(mesh.triangles)
            self.slices.append((first, count))
            first += count
        if meshes:
            self._arrays = tuple(np.ascontiguousarray(np.concatenate([getattr(m, name).reshape(-1, width)
                                                                       for m in meshes]), dtype=np.float32)
                                 for name, width in (("triangles", 3), ("normals", 3), ("colours", 4)))
        else:
            self._arrays = None
        self._uploaded = False
        self.placements = []
        self.update()

    def set_poses(self, placements: list[QMatrix4x4], flatten: QMatrix4x4 | None) -> None:
        self.placements = placements
        self.flatten = flatten
        self.update()

    def _upload(self) -> None:
        for buffer, array in zip(self.buffers, self._arrays):
            if not buffer.isCreated():
                buffer.create()
            buffer.bind()
            buffer.allocate(array, array.nbytes)
            buffer.release()
        self._uploaded = True

    def paint(self) -> None:
        if self._arrays is None or not self.placements:
            return
        self.setupGLState()
        if not self._uploaded:
            self._upload()
        view, projection = self.modelViewMatrix(), self.projectionMatrix()
        with_normals = [(self.lit, ("a_position", "a_normal", "a_color"), False)]
        if self.flatten is not None:
            with_normals.append((self.flat, ("a_position",), True))
        for program_object, attributes, shadow in with_normals:
            program = program_object.program()
            locations = []
            for name, buffer, width in zip(attributes, self.buffers, (3, 3, 4)):
                location = GL.glGetAttribLocation(program, name)
                if location == -1:
                    continue
                buffer.bind()
                GL.glVertexAttribPointer(location, width, GL.GL_FLOAT, False, 0, None)
                buffer.release()
                GL.glEnableVertexAttribArray(location)
                locations.append(location)
            if shadow:
                program_object["u_colour"] = list(self.shadow_colour)
            with program_object:
                mvp_at = GL.glGetUniformLocation(program, "u_mvp")
                normal_at = GL.glGetUniformLocation(program, "u_normal")
                for (first, count), placement in zip(self.slices, self.placements):
                    model_view = view * (self.flatten * placement if shadow else placement)
                    GL.glUniformMatrix4fv(mvp_at, 1, False, _array(projection * model_view))
                    if normal_at != -1:
                        GL.glUniformMatrix3fv(normal_at, 1, False,
                                              np.array(model_view.normalMatrix().data(), dtype=np.float32))
                    GL.glDrawArrays(GL.GL_TRIANGLES, first, count)
            for location in locations:
                GL.glDisableVertexAttribArray(location)
