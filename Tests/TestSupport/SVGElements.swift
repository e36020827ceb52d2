import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The elements of an SVG document, as an XML parser sees them.
public final class SVGElements: NSObject, XMLParserDelegate {
    public var elements: [(name: String, attributes: [String: String])] = []
    public var texts: [String] = []
    /// The text of each element that has some, by its index in ``elements``.
    public var contents: [Int: String] = [:]
    private var current = ""
    private var open: [Int] = []

    /// Parses `bytes`; nil when they are not well-formed XML.
    public static func parse(_ bytes: [UInt8]) -> SVGElements? {
        let parser = XMLParser(data: Data(bytes))
        let collector = SVGElements()
        parser.delegate = collector
        return parser.parse() ? collector : nil
    }

    public func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append((name, attributes))
        open.append(elements.count - 1)
        current = ""
    }
    public func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }
    public func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let index = open.popLast()
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            texts.append(current)
            if let index { contents[index] = current }
        }
        current = ""
    }

    /// The attributes of the first element whose text is `text`.
    public func element(text: String) -> [String: String]? {
        contents.filter { $0.value == text }.keys.min().map { elements[$0].attributes }
    }

    /// The y coordinate of the first element whose text is `text`.
    public func y(ofText text: String) -> Double? { element(text: text).flatMap { $0["y"] }.flatMap(Double.init) }

    public func element(id: String) -> [String: String]? { elements.first { $0.attributes["id"] == id }?.attributes }
    public func count(_ name: String, classContaining cls: String? = nil) -> Int {
        elements.filter { $0.name == name && (cls == nil || ($0.attributes["class"] ?? "").contains(cls!)) }.count
    }
    /// Points (M/L commands) in the path with `id`.
    public func points(id: String) -> Int {
        (element(id: id)?["d"] ?? "").filter { $0 == "M" || $0 == "L" }.count
    }
}

