#!/usr/bin/env python3
"""Writes resources/examples/*.json: the papers' demo models as Tether scenes.

A development tool: the JSON files it writes are committed and are what Tether loads.
Run it again after changing a model here: python3 scripts/make_examples.py
"""
import json
import math
import os
import random

OUT = os.path.join(os.path.dirname(__file__), "..", "resources", "examples")


def norm(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def quat_from_basis(x, y, z):
    """Unit quaternion [w, x, y, z] of the rotation whose columns are the world images of the
    body axes x, y, z (orthonormal, right-handed)."""
    m = [[x[0], y[0], z[0]], [x[1], y[1], z[1]], [x[2], y[2], z[2]]]
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s]
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2
        q = [(m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s]
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2
        q = [(m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s]
    else:
        s = math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2
        q = [(m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s]
    return norm(q)


def axis_angle(axis, deg):
    return {"axis": axis, "angle_deg": deg}


def scene(description, settings, bodies, nails=(), paths=(), forces=(), constraints=(), events=(), planes=None):
    s = {"format": "tether-scene", "version": 1, "description": description, "settings": settings,
         "bodies": list(bodies), "nails": list(nails), "paths": list(paths), "forces": list(forces),
         "constraints": list(constraints), "events": list(events)}
    if planes is not None:
        s["planes"] = list(planes)
    return s


# Contact scenes (issue 20): default integrator and step, contacts on, a floor plane.
def contact_settings(duration=10):
    return {"dt": 0.001, "contacts": True, "duration": duration}


FLOOR = {"name": "floor", "point": [0, 0, 0], "normal": [0, 0, 1], "restitution": 0.0}


def bouncing_ball():
    return scene("A ball dropped 1 m onto the floor bounces with restitution 0.8: each apex is 0.64 of the one before.",
                 contact_settings(),
                 [{"name": "ball", "type": "sphere", "radius": 0.1, "density": 1000, "position": [0, 0, 1.1],
                   "restitution": 0.8}], planes=[FLOOR])


def rolling_ball():
    # a ramp (a plane tilted 0.3 rad, falling towards +x, above the floor for x < 0) meets the
    # floor at x = 0; a wall stands at x = 6. The ball, released 2 m up the ramp, rolls without
    # slipping by friction alone (mu = 0.5 >= 2/7 tan 0.3 = 0.088): a = 5/7 g sin(0.3) = 2.07 m/s^2
    theta, r = 0.3, 0.1
    n = [math.sin(theta), 0.0, math.cos(theta)]
    x0 = -2.0
    surface = [x0, 0.0, -math.tan(theta) * x0]
    ramp = {"name": "ramp", "point": [0, 0, 0], "normal": n, "restitution": 0.0, "friction": 0.5, "static_friction": 0.5}
    wall = {"name": "wall", "point": [6, 0, 0], "normal": [-1, 0, 0], "restitution": 0.5}
    ball = {"name": "ball", "type": "sphere", "radius": r, "density": 1000,
            "position": [surface[i] + (r - 5e-7) * n[i] for i in range(3)], "restitution": 0.0}
    return scene("A ball rolls down a ramp without slipping (friction alone: a = 5/7 g sin theta), along the floor "
                 "into a wall, and back up the ramp.", contact_settings(), [ball], planes=[ramp, FLOOR, wall])


def rolling_sphere():
    # the rolling constraint (a velocity constraint) beside a frictionless slide: two balls on a
    # level plane, each on a spring (k = 139 N/m, rest length 0) to a nail at its centre's height,
    # pulled 0.5 m out and let go. The sliding one (point-on-plane) has all its mass in the
    # oscillation: period 2 pi sqrt(m/k) = 2.0 s; the rolling one must also spin, which adds
    # 2/5 m: period 2 pi sqrt(7/5 m/k) = 2.37 s. They start in step and drift apart.
    r = 0.15
    m = 1000.0 * 4.0 / 3.0 * math.pi * r ** 3
    k = round(m * math.pi ** 2, 1)  # the slider's period 2 s
    balls, nails, forces = [], [], []
    for name, y in (("roller", -0.4), ("slider", 0.4)):
        balls.append({"name": name, "type": "sphere", "radius": r, "density": 1000, "position": [0.5, y, r]})
        nails.append({"name": name + "_anchor", "position": [0, y, r]})
        forces.append({"name": name + "_spring", "type": "spring", "a": "nail:" + name + "_anchor",
                       "b": name + ".center", "stiffness": k, "rest_length": 0})
    return scene("Two balls on springs on a level floor, pulled out and let go: the one held by the rolling (velocity) "
                 "constraint turns as it rolls and swings with a period of 2.37 s (its spin adds 2/5 of its mass); "
                 "the one held by point-on-plane slides without turning, period 2.0 s.",
                 {"dt": 0.001, "duration": 20}, balls, nails=nails, forces=forces,
                 constraints=[{"name": "roll", "type": "rolling", "body": "roller", "origin": [0, 0, 0], "normal": [0, 0, 1]},
                              {"name": "slide", "type": "point_on_plane", "point": "slider.center",
                               "origin": [0, 0, r], "normal": [0, 0, 1]}])


def box_stack():
    # a millimetre apart and a little off-centre (by up to 2 mm): they fall onto each other and stand
    bodies = [{"name": "box%d" % (i + 1), "type": "box", "size": [0.3, 0.3, 0.2], "density": 500,
               "position": [0.002 * (i % 3 - 1), 0.0015 * ((i * 7) % 3 - 1), 0.1 + 0.2 * i + 0.001 * (i + 1)],
               "restitution": 0.0} for i in range(10)]
    return scene("Ten boxes stacked a millimetre apart fall onto each other and stand.", contact_settings(60), bodies,
                 planes=[FLOOR])


def newtons_cradle():
    # five steel balls, each on two strings (distance constraints to two nails 0.4 m apart,
    # 0.5 m long), 2 mm apart; the first is pulled out 0.5 rad about the strings' axis
    r, length, half, gap = 0.05, 0.5, 0.2, 0.002
    hang = math.sqrt(length * length - half * half)
    bodies, nails, constraints = [], [], []
    for i in range(5):
        x = i * (2 * r + gap)
        nails += [{"name": "n%da" % i, "position": [x, -half, length]}, {"name": "n%db" % i, "position": [x, half, length]}]
        pos = [x, 0, length - hang]
        if i == 0:
            pos = [x - hang * math.sin(0.5), 0, length - hang * math.cos(0.5)]
        name = "ball%d" % (i + 1)
        bodies.append({"name": name, "type": "sphere", "radius": r, "density": 7800, "position": pos, "restitution": 1.0})
        for side in "ab":
            constraints.append({"name": "string%d%s" % (i + 1, side), "type": "distance", "a": name + ".center",
                                "b": "nail:n%d%s" % (i, side), "length": length})
    return scene("Newton's cradle: five steel balls on strings, 2 mm apart, restitution 1; the first is let go and "
                 "the last flies off.", contact_settings(20), bodies, nails=nails, constraints=constraints, planes=[])


def torus_chain():
    # links 0.14 m apart, alternately flat and upright: each passes through its neighbours' holes
    # with 2 cm to spare; no constraint holds them, only their contacts
    upright = [math.cos(math.pi / 4), math.sin(math.pi / 4), 0, 0]
    bodies = [{"name": "link%d" % (i + 1), "type": "torus", "major_radius": 0.1, "minor_radius": 0.02, "density": 7800,
               "position": [0.14 * i, 0, 0.6 + 0.03 * i], "orientation": [1, 0, 0, 0] if i % 2 == 0 else upright,
               "restitution": 0.3} for i in range(8)]
    return scene("Eight interlocking torus links, held by nothing but their contacts, dropped onto the floor.",
                 contact_settings(), bodies, planes=[FLOOR])


def card_house_friction():
    """Seven playing cards on a board held up by nothing but their contacts and friction: two
    A-frames, a card laid flat across them, an A-frame on that. No constraint at all.

    In the x-z plane a card turned by a about y maps its local (u, v) (u across its thickness, v
    along its height) to x = u cos a + v sin a, z = -u sin a + v cos a. An A-frame is two cards
    leaning at -phi and +phi, their inner top edges meeting at the apex. By symmetry the force
    between the tops is horizontal; the contact's normal is one card's face normal, phi from the
    horizontal, so the tops need mu >= tan phi (0.32 at 18 degrees) and each foot
    mu >= tan(phi) / 2 (0.16), with a load on the apex too. The cards have 0.6 (static) and 0.5.
    (Cards leaning the top of one on the other's face need 0.46 at the top without a load and
    0.87 under the roof's share: that house fell.)"""
    t, w, h = 0.003, 0.12, 0.18         # card: thickness, width (along y), height
    phi, gap = math.radians(18), 5e-7
    card = {"type": "box", "size": [t, w, h], "density": 700, "restitution": 0.0,
            "friction": 0.5, "static_friction": 0.6}
    bodies = []

    def local(a, u, v):
        return [u * math.cos(a) + v * math.sin(a), -u * math.sin(a) + v * math.cos(a)]

    def corners(center, a):
        return [[center[0] + p[0], center[1] + p[1]] for p in
                (local(a, u, v) for u in (-t / 2, t / 2) for v in (-h / 2, h / 2))]

    # the house stands turned by `turn` about the vertical, so that the app's first view (along
    # +y) sees the A-frames from three quarters, not edge on
    turn = math.radians(30)
    cz, sz = math.cos(turn / 2), math.sin(turn / 2)

    def add_card(name, center, a):
        b = dict(card)
        ca, sa = math.cos(a / 2), math.sin(a / 2)  # R_z(turn) R_y(a) as a quaternion [w, x, y, z]
        b.update({"name": name, "position": [center[0] * math.cos(turn), center[0] * math.sin(turn), center[1]],
                  "orientation": [cz * ca, -sz * sa, cz * sa, sz * ca]})
        bodies.append(b)
        return max(c[1] for c in corners(center, a))

    def a_frame(name, apex_x, z0):
        # the right card (a = -phi): its inner edge (u = -t/2) runs from its foot, the lowest
        # corner, on the surface, to the apex; the left card is its mirror image
        a = -phi
        foot = local(a, -t / 2, -h / 2)
        right = [apex_x + h * math.sin(phi) + gap - foot[0], z0 + gap - foot[1]]
        left = [2 * apex_x - right[0], right[1]]
        return max(add_card(name + "_left", left, phi), add_card(name + "_right", right, a))

    table_top = 0.03
    bodies.append({"name": "table", "type": "box", "size": [0.5, 0.35, table_top], "density": 700, "fixed": True,
                   "position": [0, 0, table_top / 2], "orientation": axis_angle([0, 0, 1], math.degrees(turn)),
                   "restitution": 0.0, "friction": 0.5, "static_friction": 0.6})
    top = max(a_frame("frame1", -0.06, table_top), a_frame("frame2", 0.06, table_top))
    roof_z = top + t / 2 + gap
    add_card("roof", [0.0, roof_z], math.pi / 2)
    a_frame("frame3", 0.0, roof_z + t / 2)
    return scene("A card house on a board, standing by friction alone: two A-frames of playing cards, a card laid "
                 "across them and an A-frame on that; no constraint holds any card.",
                 contact_settings(30), bodies, planes=[FLOOR])


def marbles():
    """500 glass marbles poured into a bin: 20 handfuls of 25, one every 0.1 s, each created
    (a create event) 0.35 m above the floor falling at 1 m/s; the bin's walls are fixed boxes."""
    rng = random.Random(7)
    r, inner, wall, height = 0.008, 0.24, 0.02, 0.16
    bodies, events = [], []
    for i, (x, y, sx, sy) in enumerate(((0, -(inner + wall) / 2, inner + 2 * wall, wall),
                                        (0, (inner + wall) / 2, inner + 2 * wall, wall),
                                        (-(inner + wall) / 2, 0, wall, inner),
                                        ((inner + wall) / 2, 0, wall, inner))):
        bodies.append({"name": "wall%d" % (i + 1), "type": "box", "size": [sx, sy, height], "density": 700,
                       "fixed": True, "position": [x, y, height / 2], "restitution": 0.3})
    for k in range(20):
        for j in range(25):
            name = "marble%d" % (25 * k + j + 1)
            x = 0.022 * (j % 5 - 2) + rng.uniform(-0.002, 0.002)
            y = 0.022 * (j // 5 - 2) + rng.uniform(-0.002, 0.002)
            bodies.append({"name": name, "type": "sphere", "radius": r, "density": 2500,
                           "position": [x, y, 0.35 + rng.uniform(0, 0.004)], "velocity": [0, 0, -1],
                           "restitution": 0.3, "friction": 0.3, "static_friction": 0.4, "active": False})
            events.append({"time": round(0.1 * k, 3), "action": "create", "target": name})
    return scene("500 glass marbles poured into a bin, a handful of 25 every 0.1 s.",
                 contact_settings(10), bodies, events=events, planes=[FLOOR])


def write(name, s):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(s, f, indent=2)
        f.write("\n")


def pendulum():
    return scene("Paper Fig. 2: a rod's end flies to a nail and the rod swings as a pendulum.",
                 {"dt": 0.001, "integrator": "rk4", "default_tau": 0.1, "duration": 10},
                 [{"name": "rod", "type": "rod", "radius": 0.02, "density": 1000,
                   "ends": [[0.3, 0.2, 1.8], [1.3, 0.2, 1.9]]}],
                 nails=[{"name": "nail", "position": [0, 0, 2]}],
                 constraints=[{"name": "hang", "type": "point_to_nail", "point": "rod.end1", "nail": "nail"}])


def compound_pendulum():
    return scene("Paper Fig. 3: a second rod joins the pendulum; both assemble and swing.",
                 {"dt": 0.001, "integrator": "rk4", "default_tau": 0.1, "duration": 10},
                 [{"name": "upper", "type": "rod", "radius": 0.02, "ends": [[0.2, 0.0, 2.1], [1.1, 0.1, 2.0]]},
                  {"name": "lower", "type": "rod", "radius": 0.02, "ends": [[1.4, -0.3, 1.6], [2.2, 0.1, 1.2]]}],
                 nails=[{"name": "nail", "position": [0, 0, 2]}],
                 constraints=[{"name": "pin", "type": "point_to_nail", "point": "upper.end1", "nail": "nail"},
                              {"name": "joint", "type": "point_to_point", "a": "upper.end2", "b": "lower.end1"}])


def ball_to_nail():
    return scene("Paper Example 2 (Fig. 10): a ball thrown past a nail is pulled to it and held against gravity.",
                 {"dt": 0.001, "integrator": "rk4", "default_tau": 0.3, "duration": 10},
                 [{"name": "ball", "type": "sphere", "radius": 0.1, "position": [-1, 0, 0.5],
                   "velocity": [1.5, 0.5, 2.0]}],
                 nails=[{"name": "nail", "position": [0, 0, 1]}],
                 constraints=[{"name": "to_nail", "type": "point_to_nail", "point": "ball.center", "nail": "nail"}])


def chain_between_towers():
    rng = random.Random(7)
    R, a, n = 0.25, 0.05, 12
    bodies = [{"name": "tower1", "type": "box", "size": [0.4, 0.4, 3.0], "fixed": True, "position": [-2, 0, 1.5],
               "points": {"hook": [0.2, 0, 1.5]}},
              {"name": "tower2", "type": "box", "size": [0.4, 0.4, 3.0], "fixed": True, "position": [2, 0, 1.5],
               "points": {"hook": [-0.2, 0, 1.5]}}]
    constraints = []
    for i in range(n):
        # scattered on the ground between the towers, lying at random angles
        axis = norm([rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)])
        bodies.append({"name": f"link{i}", "type": "torus", "major_radius": R, "minor_radius": a,
                       "density": 500,
                       "position": [-1.6 + 3.2 * i / (n - 1) + rng.uniform(-0.2, 0.2), rng.uniform(-1.2, 1.2),
                                    rng.uniform(0.2, 0.6)],
                       "orientation": axis_angle(axis, rng.uniform(0, 180)),
                       "points": {"top_in": [0, R - a, 0], "bottom_in": [0, -(R - a), 0]}})
    constraints.append({"name": "hook1", "type": "point_to_point", "a": "tower1.hook", "b": "link0.top_in"})
    for i in range(n - 1):
        constraints.append({"name": f"joint{i}", "type": "point_to_point", "a": f"link{i}.bottom_in",
                            "b": f"link{i + 1}.top_in"})
    constraints.append({"name": "hook2", "type": "point_to_point", "a": f"link{n - 1}.bottom_in", "b": "tower2.hook"})
    return scene("Paper Figs. 19-21: chain links scattered on the ground link up between two towers, then swing.",
                 {"dt": 0.002, "integrator": "rk4", "default_tau": 0.25, "duration": 10, "assembly_time": 4},
                 bodies, constraints=constraints,
                 forces=[{"name": "air", "type": "damping", "bodies": [], "linear": 0.3, "angular": 0.01}])


def space_station():
    rng = random.Random(3)
    bodies = [{"name": "hub", "type": "box", "size": [1, 1, 1], "density": 200, "position": [0.5, -0.4, 0.3],
               "orientation": axis_angle([0.3, 1, 0.2], 35)}]
    nails = [{"name": "orbit", "position": [0, 0, 0]}]
    constraints = [{"name": "hub_pos", "type": "point_to_nail", "point": "hub.center", "nail": "orbit"},
                   # the hub's attitude: its top face centre slides on the z axis, its east face centre
                   # stays in the plane y = 0
                   {"name": "hub_up", "type": "point_on_line", "point": "hub.top", "origin": [0, 0, 0],
                    "direction": [0, 0, 1]},
                   {"name": "hub_east", "type": "point_on_plane", "point": "hub.right", "origin": [0, 0, 0],
                    "normal": [0, 1, 0]}]
    faces = [("east", "right", [1, 0, 0]), ("west", "left", [-1, 0, 0]), ("north", "back", [0, 1, 0]),
             ("south", "front", [0, -1, 0])]
    for name, face, out in faces:
        # trusses drift in from far away; each docks by one end and swings its far end onto its
        # axis line
        start = [6 * out[0] + rng.uniform(-1, 1), 6 * out[1] + rng.uniform(-1, 1), rng.uniform(-2, 2)]
        tilt = norm([out[0] + rng.uniform(-0.5, 0.5), out[1] + rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)])
        bodies.append({"name": f"truss_{name}", "type": "rod", "length": 2.0, "radius": 0.08, "density": 300,
                       "position": start, "orientation": quat_from_basis(*basis_with_z(tilt))})
        constraints.append({"name": f"dock_{name}", "type": "point_to_point", "a": f"hub.{face}",
                            "b": f"truss_{name}.end1"})
        constraints.append({"name": f"line_{name}", "type": "point_on_line", "point": f"truss_{name}.end2",
                            "origin": [0, 0, 0], "direction": out})
    for name, out in [("east", [1, 0, 0]), ("west", [-1, 0, 0])]:
        start = [9 * out[0], rng.uniform(-2, 2), rng.uniform(1, 3)]
        spin = rng.uniform(10, 60) + (180 if out[0] < 0 else 0)
        bodies.append({"name": f"panel_{name}", "type": "box", "size": [1.6, 0.04, 1.0], "density": 150,
                       "position": start, "orientation": axis_angle([0.2, 0.1, 1], spin),
                       "points": {"mount": [-0.8 * out[0], 0, 0], "tip": [0.8 * out[0], 0, 0]}})
        constraints.append({"name": f"panel_dock_{name}", "type": "point_to_point", "a": f"truss_{name}.end2",
                            "b": f"panel_{name}.mount"})
        constraints.append({"name": f"panel_span_{name}", "type": "point_on_line", "point": f"panel_{name}.tip",
                            "origin": [0, 0, 0], "direction": [1, 0, 0]})
        # the panel turns about the truss axis until its face looks up: the paper's orientation
        # constraint (a pure torque), acting on the one rotation the other constraints leave
        constraints.append({"name": f"panel_face_{name}", "type": "orientation", "body": f"panel_{name}",
                            "axis": [0, 1, 0], "direction": [0, 0, 1]})
    return scene("Paper Figs. 22-23: modules drift in and dock by point-to-point, point-on-line and "
                 "point-to-nail constraints; solar panels turn to face up by orientation constraints. The "
                 "constraint forces are the rocket thrusts.",
                 {"gravity_on": False, "dt": 0.002, "integrator": "rk4", "default_tau": 0.3, "duration": 10,
                  "assembly_time": 6},
                 bodies, nails=nails, constraints=constraints)


def basis_with_z(z):
    z = norm(z)
    t = [1, 0, 0] if abs(z[0]) < 0.9 else [0, 1, 0]
    x = norm(cross(t, z))
    y = cross(z, x)
    return x, y, z


def mat_from_basis(x, y, z):
    return [[x[0], y[0], z[0]], [x[1], y[1], z[1]], [x[2], y[2], z[2]]]


def apply(m, v):
    return [sum(m[i][j] * v[j] for j in range(3)) for i in range(3)]


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def card_house():
    """Cards fly in and assemble into a two-storey house under gravity: a table card on the
    floor, two A-frames hinged to it, a roof card across their ridges, and an A-frame on the roof.
    Point-to-point joints hinge the cards; point-on-plane keeps feet and table on their planes."""
    rng = random.Random(11)
    w, t, h = 0.6, 0.01, 0.9            # card: width (x), thickness (y), height (z)
    table_size = [1.8, 1.0, 0.04]
    table_top = table_size[2]
    bodies, constraints = [], []
    card_points = {"ridge_mid": [0, -t / 2, h / 2]}

    def corner(center, m, i, size):
        half = [(1 if i & 1 else -1) * size[0] / 2, (1 if i & 2 else -1) * size[1] / 2,
                (1 if i & 4 else -1) * size[2] / 2]
        return add(center, apply(m, half))

    # assembled poses of an A-frame's two cards standing on a horizontal surface at height z0
    def a_frame(xc, z0, lean_deg):
        lean = math.radians(lean_deg)
        s, H = h * math.sin(lean), h * math.cos(lean)
        out = []
        for side in (-1, 1):
            zz = [0, -side * math.sin(lean), math.cos(lean)]      # bottom -> top, leaning inwards
            xx = [1, 0, 0] if side < 0 else [-1, 0, 0]             # card b is card a turned about z
            yy = cross(zz, xx)
            m = mat_from_basis(xx, yy, zz)
            # the outer bottom edge stands on the surface at y = side * s
            bottom_mid_outer = [xc, side * s, z0]
            center = sub(bottom_mid_outer, apply(m, [0, -t / 2, -h / 2]))
            out.append((center, m, quat_from_basis(xx, yy, zz)))
        return out, z0 + H

    def scattered(center):
        return [center[0] + rng.uniform(-1.5, 1.5), center[1] + rng.uniform(-1.5, 1.5),
                center[2] + rng.uniform(0.5, 1.5)]

    def tilt():
        return axis_angle(norm([rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)]), rng.uniform(0, 90))

    # the table lies on the floor
    bodies.append({"name": "table", "type": "box", "size": table_size, "density": 600,
                   "position": [0.1, -0.2, 0.4], "orientation": axis_angle([1, 0.2, 0], 25), "points": {}})
    for i, c in enumerate([0, 1, 2]):
        constraints.append({"name": f"table_on_floor{i}", "type": "point_on_plane", "point": f"table.corner{c}",
                            "origin": [0, 0, 0], "normal": [0, 0, 1]})
    table_center = [0, 0, table_top / 2]

    def stand(frame_name, cards, base_name, base_center, base_m, base_top):
        """Hinge each card's bottom edge to the base (one corner by point-to-point, the other on the
        base's top plane) and join the two top edges at both corners."""
        base = next(b for b in bodies if b["name"] == base_name)
        for tag, (center, m, q) in zip("ab", cards):
            name = f"{frame_name}{tag}"
            bodies.append({"name": name, "type": "box", "size": [w, t, h], "density": 700,
                           "position": scattered(center), "orientation": tilt(), "points": dict(card_points)})
            foot = corner(center, m, 0, [w, t, h])
            local = apply([[base_m[j][i] for j in range(3)] for i in range(3)], sub(foot, base_center))
            base["points"][f"{name}_foot"] = [round(v, 12) for v in local]
            constraints.append({"name": f"{name}_hinge", "type": "point_to_point", "a": f"{name}.corner0",
                                "b": f"{base_name}.{name}_foot"})
            constraints.append({"name": f"{name}_foot", "type": "point_on_plane", "point": f"{name}.corner1",
                                "origin": [0, 0, base_top], "normal": [0, 0, 1]})
        # top corners: card a's corner4 (-x) meets card b's corner5 (card b's +x is world -x)
        constraints.append({"name": f"{frame_name}_ridge1", "type": "point_to_point", "a": f"{frame_name}a.corner4",
                            "b": f"{frame_name}b.corner5"})
        constraints.append({"name": f"{frame_name}_ridge2", "type": "point_to_point", "a": f"{frame_name}a.corner5",
                            "b": f"{frame_name}b.corner4"})

    identity = mat_from_basis([1, 0, 0], [0, 1, 0], [0, 0, 1])
    ridge_heights = []
    for k, xc in enumerate([-0.42, 0.42]):
        cards, ridge = a_frame(xc, table_top, 20)
        ridge_heights.append(ridge)
        stand(f"card{k}", cards, "table", table_center, identity, table_top)

    # the roof card lies across the two ridges (its height along x, its thickness vertical)
    ridge = ridge_heights[0]
    roof_m = mat_from_basis([0, 1, 0], [0, 0, 1], [1, 0, 0])
    roof_center = [0, 0, ridge + t / 2]
    bodies.append({"name": "roof", "type": "box", "size": [w, t, h], "density": 700,
                   "position": scattered(roof_center), "orientation": tilt(),
                   "points": {"rest0": [0, -t / 2, -0.42], "rest1": [0, -t / 2, 0.42]}})
    constraints.append({"name": "roof_on_ridge0", "type": "point_to_point", "a": "roof.rest0", "b": "card0a.ridge_mid"})
    constraints.append({"name": "roof_on_ridge1", "type": "point_to_point", "a": "roof.rest1", "b": "card1a.ridge_mid"})
    constraints.append({"name": "roof_level", "type": "point_on_plane", "point": "roof.corner0",
                        "origin": [0, 0, ridge], "normal": [0, 0, 1]})
    # the top A-frame stands on the roof
    roof_top = ridge + t
    cards, _ = a_frame(0.0, roof_top, 15)
    stand("card2", cards, "roof", roof_center, roof_m, roof_top)
    return scene("Paper Figs. 24-25: cards fly in and assemble into a two-storey card house under gravity; "
                 "point-to-point joints hinge the cards, point-on-plane keeps feet, roof and table level.",
                 {"dt": 0.004, "integrator": "rk4", "default_tau": 0.25, "duration": 10, "assembly_time": 5},
                 bodies, constraints=constraints)


def pandoras_chain():
    R, a, n = 0.08, 0.015, 6
    rng = random.Random(5)
    bodies = [{"name": "door", "type": "box", "size": [0.6, 0.6, 0.04], "density": 500, "position": [0, 0, 2.0]}]
    nails = [{"name": "hinge_l", "position": [-0.3, -0.3, 1.98]}, {"name": "hinge_r", "position": [0.3, -0.3, 1.98]},
             {"name": "latch_pin", "position": [0, 0.3, 1.98]}]
    constraints = [{"name": "hinge_left", "type": "point_to_nail", "point": "door.corner0", "nail": "hinge_l"},
                   {"name": "hinge_right", "type": "point_to_nail", "point": "door.corner1", "nail": "hinge_r"},
                   {"name": "latch", "type": "point_to_nail", "point": {"body": "door", "local": [0, 0.3, -0.02]},
                    "nail": "latch_pin"}]
    forces = [{"name": "air", "type": "damping", "bodies": [], "linear": 0.05, "angular": 0.002}]
    for i in range(n):
        # link i's ring lies in a vertical plane, alternating between the xz and yz planes
        ring_normal = [0, 1, 0] if i % 2 == 0 else [1, 0, 0]
        x_axis = [1, 0, 0] if i % 2 == 0 else [0, -1, 0]
        assembled = quat_from_basis(x_axis, [0, 0, 1], ring_normal)  # local y up
        bodies.append({"name": f"link{i}", "type": "torus", "major_radius": R, "minor_radius": a, "density": 7800,
                       # dumped in a heap on the floor below the door
                       "position": [rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), 0.1 + 0.05 * i],
                       "orientation": axis_angle(norm([rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)]),
                                                 rng.uniform(0, 170)),
                       "points": {"top_in": [0, R - a, 0], "bottom_in": [0, -(R - a), 0]}})
        del assembled
    constraints.append({"name": "hook", "type": "point_to_point", "a": "door.bottom", "b": "link0.top_in"})
    for i in range(n - 1):
        constraints.append({"name": f"link{i}_{i + 1}", "type": "point_to_point", "a": f"link{i}.bottom_in",
                            "b": f"link{i + 1}.top_in"})
        # torsion springs keep consecutive links' rings perpendicular
        forces.append({"name": f"twist{i}", "type": "torsion_spring", "body_a": f"link{i}", "axis_a": [0, 0, 1],
                       "body_b": f"link{i + 1}", "axis_b": [0, 0, 1], "stiffness": 0.05, "damping": 0.002,
                       "rest_angle": math.pi / 2})
    events = [{"time": 6.0, "action": "disable", "target": "latch"}]
    return scene("Paper Fig. 26: torus links connect together and hook to a trap door; torsion springs keep the "
                 "links perpendicular; gravity and damping act on everything. At t = 6 s the latch lets go and "
                 "the door swings open with the chain.",
                 {"dt": 0.001, "integrator": "rk4", "default_tau": 0.2, "duration": 10, "assembly_time": 3},
                 bodies, nails=nails, forces=forces, constraints=constraints, events=events)


def three_link_bar():
    return scene("Hong et al. Fig. 1: three rods joined by spherical joints; the first rod's free end is driven "
                 "around a circle in the x-y plane (prescribed motion), the last is pinned to the ground.",
                 {"dt": 0.001, "integrator": "rk4", "default_tau": 0.05, "duration": 10},
                 [{"name": "bar1", "type": "rod", "radius": 0.02, "ends": [[0.5, 0, 1.5], [0.8, 0, 0.55]]},
                  {"name": "bar2", "type": "rod", "radius": 0.02, "ends": [[0.8, 0, 0.55], [0.3, 0.1, -0.3]]},
                  {"name": "bar3", "type": "rod", "radius": 0.02, "ends": [[0.3, 0.1, -0.3], [0, 0, 0]]}],
                 nails=[{"name": "ground", "position": [0, 0, 0]}],
                 paths=[{"name": "drive", "type": "circle", "center": [0, 0, 1.5], "normal": [0, 0, 1],
                         "u": [1, 0, 0], "radius": 0.5, "period": 2.0, "phase": 0}],
                 constraints=[{"name": "driven", "type": "point_to_path", "point": "bar1.end1", "path": "drive"},
                              {"name": "joint12", "type": "point_to_point", "a": "bar1.end2", "b": "bar2.end1"},
                              {"name": "joint23", "type": "point_to_point", "a": "bar2.end2", "b": "bar3.end1"},
                              {"name": "pin", "type": "point_to_nail", "point": "bar3.end2", "nail": "ground"}])


def three_link_bar_velocity():
    # the same bar driven as in the paper's Sec. 4: the driven end's velocity is prescribed (a
    # non-holonomic constraint), not its position; it starts at rest, on the circle
    bar = three_link_bar()
    bar["description"] = ("Hong et al. Sec. 4 and Fig. 1: three rods joined by spherical joints, the last pinned to "
                          "the ground; the first rod's free end is given the velocity of a point running round a "
                          "circle in the x-y plane (a velocity, non-holonomic constraint), not its position.")
    bar["constraints"][0] = {"name": "driven", "type": "point_velocity", "point": "bar1.end1", "path": "drive"}
    return bar


def door_on_hinge():
    # a 43 kg door (0.9 x 0.04 x 2.0 m, wood) on a fixed post, held open at about 110 degrees but
    # off its hinge (5-8 cm away, tilted): it assembles onto the hinge (a point and an axis), and
    # the door closer, a damped torsion spring between the post's and the door's x axes, swings
    # it shut; it overshoots and settles
    yaw = math.radians(110)
    centre = [0.05 + 0.45 * math.cos(yaw) + 0.04, 0.45 * math.sin(yaw) + 0.05, 1.0 + 0.08]
    return scene("A door on a hinge: the door starts open and off its post, assembles onto the hinge (a point and "
                 "an axis: it can only turn about the post), and a damped door closer (a torsion spring) swings "
                 "it shut.",
                 {"dt": 0.001, "default_tau": 0.1, "duration": 20},
                 [{"name": "post", "type": "box", "size": [0.1, 0.1, 2.1], "position": [0, 0, 1.05], "fixed": True,
                   "points": {"hinge": [0.05, 0, -0.05]}},
                  {"name": "door", "type": "box", "size": [0.9, 0.04, 2.0], "density": 600,
                   "position": centre, "orientation": axis_angle(norm([0.08, 0.06, 1.0]), 110),
                   "points": {"hinge": [-0.45, 0, 0]}}],
                 forces=[{"name": "closer", "type": "torsion_spring", "body_a": "post", "axis_a": [1, 0, 0],
                          "body_b": "door", "axis_b": [1, 0, 0], "stiffness": 20, "damping": 8, "rest_angle": 0}],
                 constraints=[{"name": "hinge", "type": "hinge", "a": "door.hinge", "b": "post.hinge",
                               "axis_a": [0, 0, 1], "axis_b": [0, 0, 1]}])


def main():
    write("pendulum", pendulum())
    write("compound_pendulum", compound_pendulum())
    write("ball_to_nail", ball_to_nail())
    write("chain_between_towers", chain_between_towers())
    write("space_station", space_station())
    write("pandoras_chain", pandoras_chain())
    write("three_link_bar", three_link_bar())
    write("three_link_bar_velocity", three_link_bar_velocity())
    write("rolling_sphere", rolling_sphere())
    write("card_house", card_house())
    write("door_on_hinge", door_on_hinge())
    write("bouncing_ball", bouncing_ball())
    write("box_stack", box_stack())
    write("newtons_cradle", newtons_cradle())
    write("torus_chain", torus_chain())
    write("rolling_ball", rolling_ball())
    write("card_house_friction", card_house_friction())
    write("marbles", marbles())


if __name__ == "__main__":
    main()
