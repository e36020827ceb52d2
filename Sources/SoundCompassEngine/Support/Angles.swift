/// `degrees` wrapped to (−180, 180] (``YawTimeline/wrap(_:)`` is the public name).
/// - Parameter degrees: any angle, degrees.
/// - Returns: the same direction in (−180, 180].
package func wrapDegrees(_ degrees: Double) -> Double {
    var a = degrees.truncatingRemainder(dividingBy: 360)
    if a > 180 { a -= 360 } else if a <= -180 { a += 360 }
    return a
}
